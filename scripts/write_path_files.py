#!/usr/bin/env python3
"""Counts the source files a request crosses: by default `PUT /admin/hosts/{host}` (issue 21, "a straight write path").

    python3 scripts/write_path_files.py            # the count, per module, then the files
    python3 scripts/write_path_files.py --quiet    # one line: files and modules
    python3 scripts/write_path_files.py --start PinSetRouter.retire
    mkdir /tmp/old && git archive REV | tar -x -C /tmp/old && python3 scripts/write_path_files.py --root /tmp/old

How it counts (a static, name-based call graph over Sources/, no compiler; it reads text and runs nothing):
1. Every Swift file under Sources/ is cut into units: each `func`, `init`, `deinit`, `subscript` and computed `var`
   with a body, owned by the type or extension around it. Comments and string literals are blanked first.
2. From the start units (the route's handler, plus the request's way in: libmicrohttpd's access callback and the
   router's `handle`), it follows what each body names:
   - `Type(` reaches Type's initializers (a type without one counts its declaring file: a memberwise init);
   - `Type.name` reaches Type's members called name;
   - `name(` / `self.name` reaches the owner's own members called name, else free functions called name;
   - `value.name` reaches members called name of the types the unit or its owner's declaration mention
     (the receiver's type is usually among them), and nothing else.
   Names resolve only in PinSetServer and the targets it depends on (Package.swift): the code a server runs.
   The route table's closures are not followed (that would reach every handler): only the start handler is.
3. A file is on the path when one of its units is reached. Modules are the Sources/ folders of those files.
It over-counts where a name resolves to several types the unit mentions, and under-counts protocol witnesses
reached only through an existential; the same rules before and after a change make the two numbers comparable.
"""

import argparse
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DEFAULT_STARTS = ["PinSetRouter.putHost", "PinSetRouter.handle", "MHDCallbacks.*"]
SERVING_TARGET = "PinSetServer"  # names resolve only inside it and the targets it depends on
SKIP_TYPES = {"RouteTable"}  # its closures name every handler: follow only the start handler
TYPE_DECL = re.compile(r"\b(class|struct|enum|actor|extension|protocol)\s+([A-Z]\w*)")
UNIT_DECL = re.compile(r"\b(func\s+(\w+)|init\b|deinit\b|subscript\b|var\s+(\w+)\s*:[^=\n{]*\{)")
KEYWORDS = {"if", "guard", "while", "for", "switch", "return", "try", "await", "catch", "throw", "in", "let", "var"}


def blank(text):
    """Comments and string literals replaced by spaces (lengths kept, so offsets still match)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j + 3
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text[i] == '"':
            j = i + 1
            depth = 0
            while j < n and (text[j] != '"' or depth > 0) and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "(":
                    depth += 1
                    j += 2
                    continue
                if depth and text[j] == ")":
                    depth -= 1
                elif text[j] == "\\":
                    j += 1
                j += 1
            out.append(" " * (j + 1 - i))
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def block(text, start):
    """(open, close) of the brace block opening at or after start, or None."""
    i = text.find("{", start)
    if i < 0:
        return None
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return i, j
    return i, len(text)


def parse(path):
    text = blank(open(path, encoding="utf-8").read())
    types = []
    for m in TYPE_DECL.finditer(text):
        span = block(text, m.end())
        if span:
            types.append((m.group(2), span[0], span[1], m.group(1)))
    units = []
    for m in UNIT_DECL.finditer(text):
        name = m.group(2) or m.group(3) or m.group(0).split()[0].split("(")[0]
        start = m.end() - 1 if m.group(0).endswith("{") else m.end()
        span = block(text, start)
        if not span:
            continue
        owners = [t for t in types if t[1] < m.start() < t[2]]
        owner = min(owners, key=lambda t: t[2] - t[1])[0] if owners else None
        units.append({"file": path, "owner": owner, "name": name, "body": text[span[0]:span[1]]})
    return types, units


def linked_modules(target):
    """`target` and every package target it depends on, read from Package.swift."""
    text = open(os.path.join(ROOT, "Package.swift"), encoding="utf-8").read()
    pieces = re.split(r"\.(?:target|executableTarget|testTarget|systemLibrary)\(", text)[1:]
    deps = {}
    for piece in pieces:
        name = re.search(r'name:\s*"(\w+)"', piece)
        if name:
            deps[name.group(1)] = set(re.findall(r'"(\w+)"', piece)) - {name.group(1)}
    seen, todo = set(), [target]
    while todo:
        module = todo.pop()
        if module in seen or module not in deps:
            continue
        seen.add(module)
        todo += deps[module]
    return seen


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--start", action="append", help="TYPE.member to start from (repeatable; * for all)")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--root", help="the package to read (default: this checkout), e.g. a `git archive` of a commit")
    args = parser.parse_args()
    global ROOT
    ROOT = args.root or ROOT
    starts = args.start or DEFAULT_STARTS

    linked = linked_modules(SERVING_TARGET)
    units, type_files, type_text = [], defaultdict(set), defaultdict(str)
    for dirpath, _, files in os.walk(os.path.join(ROOT, "Sources")):
        for name in sorted(files):
            path = os.path.relpath(os.path.join(dirpath, name), ROOT)
            if not name.endswith(".swift") or path.split(os.sep)[1] not in linked:
                continue
            types, file_units = parse(os.path.join(ROOT, path))
            for unit in file_units:
                unit["file"] = path
            units += file_units
            for type_name, open_, close, kind in types:
                type_files[type_name].add(path)
                if kind != "extension":
                    type_text[type_name] += open(os.path.join(ROOT, path), encoding="utf-8").read()[open_:close]
    by_owner = defaultdict(list)
    by_name = defaultdict(list)
    for unit in units:
        by_owner[(unit["owner"], unit["name"])].append(unit)
        by_name[unit["name"]].append(unit)

    reached, files, queue = set(), set(), []

    def reach(unit):
        key = id(unit)
        if key not in reached and unit["owner"] not in SKIP_TYPES:
            reached.add(key)
            files.add(unit["file"])
            queue.append(unit)

    for start in starts:
        owner, _, member = start.partition(".")
        for unit in units:
            if unit["owner"] == owner and member in ("*", unit["name"]):
                reached.add(id(unit))
                files.add(unit["file"])
                queue.append(unit)

    while queue:
        unit = queue.pop()
        body = unit["body"]
        context = set(re.findall(r"\b([A-Z]\w*)", body)) | set(re.findall(r"\b([A-Z]\w*)", type_text[unit["owner"]]))
        context.add(unit["owner"])
        for type_name in re.findall(r"\b([A-Z]\w*)\s*\(", body):
            inits = by_owner.get((type_name, "init"), [])
            for target in inits:
                reach(target)
            if not inits and type_name in type_files and type_name not in SKIP_TYPES:
                files.update(type_files[type_name])
        for type_name, member in re.findall(r"\b([A-Z]\w*)\.(\w+)", body):
            for target in by_owner.get((type_name, member), []):
                reach(target)
        for prefix, member in re.findall(r"(\.|\bself\.|\b)([a-z_]\w*)\s*\(?", body):
            if member in KEYWORDS:
                continue
            own = by_owner.get((unit["owner"], member), [])
            if prefix in ("", "self."):
                targets = own or by_owner.get((None, member), [])
            else:
                targets = own + [t for t in by_name.get(member, []) if t["owner"] in context]
            for target in targets:
                reach(target)

    modules = defaultdict(list)
    for path in sorted(files):
        modules[path.split(os.sep)[1]].append(path)
    print(f"{len(files)} files in {len(modules)} modules on the path from {', '.join(starts)}")
    if not args.quiet:
        for module, paths in sorted(modules.items()):
            print(f"  {module}: {len(paths)}")
            for path in paths:
                print(f"    {path}")


if __name__ == "__main__":
    sys.exit(main())
