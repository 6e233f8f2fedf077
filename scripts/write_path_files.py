#!/usr/bin/env python3
"""Counts the source files a request crosses: by default `PUT /admin/hosts/{host}` (issue 21, "a straight write path").

    python3 scripts/write_path_files.py            # the count, per module, then the files
    python3 scripts/write_path_files.py --quiet    # one line: files and modules
    python3 scripts/write_path_files.py --start PinSetRouter.retire
    mkdir /tmp/old && git archive REV | tar -x -C /tmp/old && python3 scripts/write_path_files.py --root /tmp/old

This is the static estimate, which needs no build. scripts/write_path_trace.py measures the same path: the files
whose functions one real write ran, from coverage counters (it finds the witnesses and closures this misses).

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
   Refinements (the default; `--by-name` drops them, for numbers comparable with counts taken before them):
   - a name resolves in another module only to a `public` (or `open`, `package`) declaration, and a type name
     (`Type(`, `Type.name`) or free function only in the calling file's own module and those it imports, as the
     compiler resolves them (so `String(` in MicroHTTPD no longer reaches PKCS11's internal `String.init`);
   - `value.name` with no `(` or `{` after it is a property read: it reaches computed `var`s called name, not
     functions (so `response.status` no longer reaches `PinSetService.status(host:)`);
   - the types a declaration mentions are read without its comments (a doc comment's ``Type`` is no use);
   - `Type(label: …)` reaches only Type's initializers with that label (`Type(x)`: one with `_`);
   - `Type.name` reaches Type's members only (not every member called name of the types around it);
   - `name:` (an argument label, or a name being declared) refers to nothing;
   - a protocol requirement is reached with no body (it used to take the next declaration's).
3. A file is on the path when one of its units is reached. Modules are the Sources/ folders of those files.
It over-counts where a name resolves to several types the unit mentions (`prepared.status` still reaches
`WitnessWorker.status`), and under-counts protocol witnesses reached only through an existential or a generic
(a `Decodable` body's `init(from:)`, the signer behind `DocumentSigner`) and closures kept in properties (the
`publish` hook that hands a document to the read path); the same rules before and after a change make the two numbers comparable.
`--why` prints, after each file, the unit that first reached it (caller, then callee), to see what put it there.
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
BY_NAME = False  # --by-name: the first rules, for numbers comparable with counts taken before the refinements
TYPE_DECL = re.compile(r"\b(class|struct|enum|actor|extension|protocol)\s+([A-Z]\w*)")
UNIT_DECL = re.compile(r"\b(func\s+(\w+)|init\b|deinit\b|subscript\b|var\s+(\w+)\s*:[^=\n{]*\{)")
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|internal|package|private|fileprivate)\s+)?import\s+(\w+)", re.M)
BODYLESS = re.compile(r"(?<!\.)\b(func|var|let|init|case|subscript|typealias|associatedtype)\b|\}")
ACCESS = re.compile(r"\b(public|open|package)\b")
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
    imports = set(IMPORT.findall(text))
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
        # A protocol requirement has no body: the next brace belongs to a later declaration.
        if not BY_NAME and BODYLESS.search(text, start, span[0]):
            span = (start, start)
        owners = [t for t in types if t[1] < m.start() < t[2]]
        owner = min(owners, key=lambda t: t[2] - t[1])[0] if owners else None
        kind = "func" if m.group(2) else "var" if m.group(3) else name
        line = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        extension = owners and min(owners, key=lambda t: t[2] - t[1])
        # Public: said on its line, or it sits in a `public extension` or is a requirement of a public protocol.
        exported = bool(ACCESS.search(line)) or bool(
            extension
            and extension[3] in ("extension", "protocol")
            and ACCESS.search(text[text.rfind("\n", 0, extension[1]) + 1:extension[1]])
        )
        units.append(
            {
                "file": path, "owner": owner, "name": name, "kind": kind, "imports": imports, "public": exported,
                "labels": labels(text[m.end():span[0]]) if name == "init" else None,
                "body": text[span[0]:span[1]],
            }
        )
    return types, units, text


def labels(signature):
    """The argument labels of an initializer's parameter list (`_` for an unlabeled one)."""
    open_ = signature.find("(")
    if open_ < 0:
        return set()
    depth, part, parts = 0, "", []
    for index, char in enumerate(signature[open_ + 1:], open_ + 1):
        if char in "([<":
            depth += 1
        elif char in ")]>" and signature[index - 1] != "-":  # not the `>` of `->`
            if depth == 0:
                break
            depth -= 1
        if char == "," and depth == 0:
            parts.append(part)
            part = ""
        else:
            part += char
    parts.append(part)
    return {p.split(":")[0].split()[0] for p in parts if ":" in p and p.split(":")[0].split()}


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
    parser.add_argument("--by-name", action="store_true", help="the first rules: no import or call/property check")
    parser.add_argument("--why", action="store_true", help="after each file, the unit that first reached it")
    parser.add_argument("--root", help="the package to read (default: this checkout), e.g. a `git archive` of a commit")
    args = parser.parse_args()
    global ROOT, BY_NAME
    ROOT = args.root or ROOT
    BY_NAME = args.by_name
    starts = args.start or DEFAULT_STARTS

    linked = linked_modules(SERVING_TARGET)
    units, type_files, type_text = [], defaultdict(set), defaultdict(str)
    for dirpath, _, files in os.walk(os.path.join(ROOT, "Sources")):
        for name in sorted(files):
            path = os.path.relpath(os.path.join(dirpath, name), ROOT)
            if not name.endswith(".swift") or path.split(os.sep)[1] not in linked:
                continue
            types, file_units, blanked = parse(os.path.join(ROOT, path))
            for unit in file_units:
                unit["file"] = path
                unit["module"] = path.split(os.sep)[1]
            units += file_units
            for type_name, open_, close, kind in types:
                type_files[type_name].add(path)
                if kind != "extension":
                    source = open(os.path.join(ROOT, path), encoding="utf-8").read() if args.by_name else blanked
                    type_text[type_name] += source[open_:close]
    by_owner = defaultdict(list)
    by_name = defaultdict(list)
    for unit in units:
        by_owner[(unit["owner"], unit["name"])].append(unit)
        by_name[unit["name"]].append(unit)

    reached, files, queue, why = set(), set(), [], {}

    def visible(caller, target, member):
        """Whether `caller` can name `target` (the precise rules): its own module's, else a public one, and for a
        type or free-function name one of a module its file imports."""
        if args.by_name or target["module"] == caller["module"]:
            return True
        return target["public"] and (member or target["module"] in caller["imports"])

    def reach(unit, caller, member=False):
        key = id(unit)
        if key not in reached and unit["owner"] not in SKIP_TYPES and visible(caller, unit, member):
            reached.add(key)
            if unit["file"] not in files:
                why[unit["file"]] = f'{caller["owner"]}.{caller["name"]} -> {unit["owner"]}.{unit["name"]}'
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
        for type_name, empty, label in re.findall(r"\b([A-Z]\w*)\s*\(\s*(\))?(?:(\w+)\s*:(?!:))?", body):
            inits = by_owner.get((type_name, "init"), [])
            if not args.by_name and not empty:
                inits = [i for i in inits if (label or "_") in i["labels"]]
            for target in inits:
                reach(target, unit)
            if not inits and type_name in type_files and type_name not in SKIP_TYPES:
                for path in type_files[type_name]:
                    if args.by_name or path.split(os.sep)[1] in unit["imports"] | {unit["module"]}:
                        why.setdefault(path, f'{unit["owner"]}.{unit["name"]} -> {type_name}( (memberwise)')
                        files.add(path)
        for type_name, member in re.findall(r"\b([A-Z]\w*)\.(\w+)", body):
            for target in by_owner.get((type_name, member), []):
                reach(target, unit)
        for m in re.finditer(r"(\.|\bself\.|\b)([a-z_]\w*)(\s*[({])?(:(?!:))?", body):
            prefix, member, call, label = m.groups()
            if member in KEYWORDS or (label and not args.by_name):
                continue
            if prefix == "." and not args.by_name:
                receiver = re.search(r"(\w+)$", body[: m.start()])
                if receiver and receiver.group(1)[0].isupper() and receiver.group(1) != "Self":
                    continue  # `Type.name`: followed above, on Type alone
            own = by_owner.get((unit["owner"], member), [])
            if prefix in ("", "self."):
                targets = own or by_owner.get((None, member), [])
            else:
                targets = own + [t for t in by_name.get(member, []) if t["owner"] in context]
                if not call and not args.by_name:
                    targets = [t for t in targets if t["kind"] == "var"]
            for target in targets:
                reach(target, unit, member=prefix == ".")

    modules = defaultdict(list)
    for path in sorted(files):
        modules[path.split(os.sep)[1]].append(path)
    rules = "by name only" if args.by_name else "imports and calls checked"
    print(f"{len(files)} files in {len(modules)} modules on the path from {', '.join(starts)} ({rules})")
    if not args.quiet:
        for module, paths in sorted(modules.items()):
            print(f"  {module}: {len(paths)}")
            for path in paths:
                print(f"    {path}" + (f"  <- {why.get(path, 'start')}" if args.why else ""))


if __name__ == "__main__":
    sys.exit(main())
