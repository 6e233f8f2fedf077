#!/usr/bin/env python3
"""Availability audit for Apple platforms, run on Linux (issue 18, item 2).

Swift on Linux ignores Apple's `@available` attributes, so client code that builds here can still fail in
Xcode. The toolchain's and the dependencies' modules keep those attributes, and their symbol graphs
(`swift-symbolgraph-extract`) carry them. This script joins them with what the client targets reference:

1. References. Each audited target is type-checked again with the flags of the debug build
   (`description.json` of `swift build`), as one `swift-frontend -dump-ast -dump-ast-format json` job with
   every file primary and `-index-store-path` set. That one job gives two things per file:
   - the index store: every reference (calls, types, conformances, implicit ones), by USR and line:column.
     It is read with the toolchain's libIndexStore.so through ctypes.
   - the typed AST as JSON: `@available` attributes of the enclosing declarations and `if #available` /
     `guard #available` / `#unavailable` conditions, so a reference that is guarded may use newer API.
2. Availability. Symbol graphs of the toolchain modules (Swift, _Concurrency, Synchronization,
   _StringProcessing, Foundation, FoundationEssentials, ...) and of every Swift module the target depends
   on (swift-crypto, swift-certificates, swift-asn1, swift-nio, swift-nio-ssl, and the package's own),
   reduced to {USR: availability, parent} and cached under .build/apple-audit/ by toolchain version and
   module file hash. A member's availability is the intersection with its parents' (type, extension).
   Where Apple's compiler would pick an older overload than Linux's does, the reference is judged by that
   one: a protocol requirement newer than its default implementation (`FixedWidthInteger.&*`), and the
   `next(isolation:)` that `for await` calls on Linux (`next()` before iOS 18).
3. Floors: `platforms:` of Package.swift. A reference is flagged when its symbol is introduced after the
   floor (raised by the enclosing `@available` / `#available`), or is unavailable or obsoleted there.
   Code that `#if` excludes on an Apple platform (`#if os(Linux)`, `#if canImport(Glibc)`, the `#else` of
   `#if canImport(Darwin)`) is not checked for that platform.
4. Linux-only imports (FoundationNetworking, Glibc, Musl) must sit in an `#if` clause that is false on
   every Apple platform; Glibc and Musl also need an Apple branch (`#elseif canImport(Darwin)` or `#else`).
   `#if canImport(FoundationNetworking)` alone is enough: Foundation has URLSession on Apple platforms.

Limits: code compiled only on Apple platforms (`#if canImport(Security)`) is not type-checked here, so it
is not audited (the run lists those lines; scripts/apple_stub_check.py type-checks the SecTrust adapter and
examples/Alamofire against stand-ins); API that Linux's swift-corelibs-foundation declares without
Apple's attributes is not caught; Sendable and other conformance differences of Apple's SDKs (CryptoKit)
are invisible here; a condition after `#available` in the same `if` (`if #available(iOS 17, *), let x =
newAPI()`) does not count as guarded, nor does `while #available`.

Usage:
  scripts/apple_audit.py                       audit Locking, CodedErrors, PinSetCore, PinSetRules, TransparencyLog, PinSetClient, PinSetNIO
  scripts/apple_audit.py --targets PinSetCore  audit some targets
  scripts/apple_audit.py --files a.swift ...   audit loose files as one module (toolchain modules only)
      [--like-target PinSetNIO]                compiled with that target's flags and dependencies
Exit status: 0 clean, 1 findings, 2 the audit could not run.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TARGETS = ["Locking", "CodedErrors", "PinSetCore", "PinSetRules", "TransparencyLog", "PinSetClient", "PinSetNIO"]
TOOLCHAIN_MODULES = [
    "Swift", "_Concurrency", "Synchronization", "_StringProcessing", "RegexBuilder", "Observation",
    "Distributed", "Dispatch", "FoundationEssentials", "FoundationInternationalization", "Foundation",
    "FoundationNetworking",
]
APPLE_PLATFORMS = ["macOS", "iOS", "tvOS", "watchOS", "visionOS", "macCatalyst"]
LINUX_ONLY_MODULES = ["FoundationNetworking", "Glibc", "Musl"]
CACHE_FORMAT = 2

Version = tuple  # (major, minor, patch)


def fail(message: str) -> None:
    print(f"apple-audit: {message}", file=sys.stderr)
    sys.exit(2)


def vstr(v: Version) -> str:
    return ".".join(str(x) for x in (v[:2] if len(v) > 2 and v[2] == 0 else v))


def parse_version(text: str) -> Version:
    parts = [int(p) for p in re.split(r"[._]", text) if p != ""]
    return tuple((parts + [0, 0, 0])[:3])


# MARK: - Floors


def parse_floors(package_swift: Path) -> dict[str, Version]:
    """`platforms: [.macOS(.v13), .iOS("16.4"), ...]` → {"macOS": (13, 0, 0), ...}."""
    text = package_swift.read_text(encoding="utf-8")
    match = re.search(r"platforms\s*:\s*\[(.*?)\]", text, re.S)
    if not match:
        fail(f"{package_swift}: no `platforms:`; nothing to audit against")
    floors: dict[str, Version] = {}
    for name, enum_version, string_version in re.findall(
        r"\.(\w+)\(\s*(?:\.v(\d+(?:_\d+)*)|\"([\d.]+)\")\s*\)", match.group(1)
    ):
        if name in APPLE_PLATFORMS:
            floors[name] = parse_version(enum_version or string_version)
    if not floors:
        fail(f"{package_swift}: no Apple platform in `platforms:`")
    return floors


# MARK: - Toolchain and build description


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


@dataclass
class Toolchain:
    swiftc: str
    frontend: str
    extractor: str
    triple: str
    key: str
    index_lib: str


def find_toolchain() -> Toolchain:
    swiftc = shutil.which("swiftc")
    if not swiftc:
        fail("swiftc is not on PATH")
    bindir = Path(os.path.realpath(swiftc)).parent
    frontend = str(bindir / "swift-frontend")
    extractor = str(bindir / "swift-symbolgraph-extract")
    index_lib = str(bindir.parent / "lib" / "libIndexStore.so")
    for p in (frontend, extractor, index_lib):
        if not os.path.exists(p):
            fail(f"{p} is missing from the toolchain")
    p = run([swiftc, "--version"])
    version = p.stdout + p.stderr
    info = json.loads(run([swiftc, "-print-target-info"]).stdout)
    triple = info["target"]["triple"]
    key = hashlib.sha256(f"{version}|{bindir}|{triple}|{CACHE_FORMAT}".encode()).hexdigest()[:16]
    return Toolchain(swiftc, frontend, extractor, triple, key, index_lib)


def find_bin_dir(tc: Toolchain, explicit: str | None) -> Path:
    candidates = [Path(explicit)] if explicit else [ROOT / ".build" / "debug", ROOT / ".build" / tc.triple / "debug"]
    for c in candidates:
        if (c / "description.json").exists():
            return c.resolve()
    fail("no debug build (description.json) under .build; run `swift build --build-tests` first")
    raise AssertionError


@dataclass
class TargetBuild:
    name: str
    sources: list[Path]
    flags: list[str]
    import_path: str
    deps: list[str]


# Driver options of SwiftPM's command line that concern outputs, not meaning. Value-taking ones map to True.
DROP_OPTIONS = {
    "-incremental": False, "-enable-batch-mode": False, "-serialize-diagnostics": False, "-parseable-output": False,
    "-emit-objc-header": False, "-enable-testing": False, "-g": False, "-Onone": False, "-O": False, "-Osize": False,
    "-whole-module-optimization": False, "-wmo": False, "-c": False, "-emit-module": False,
    "-emit-dependencies": False, "-color-diagnostics": False,
    "-index-store-path": True, "-module-cache-path": True, "-emit-objc-header-path": True,
    "-output-file-map": True, "-emit-module-path": True, "-num-threads": True, "-j": True,
}


def load_target_builds(bin_dir: Path, names: list[str]) -> dict[str, TargetBuild]:
    desc = json.loads((bin_dir / "description.json").read_text())
    commands = {v.get("moduleName"): v for v in desc.get("swiftCommands", {}).values() if "moduleName" in v}
    dep_map = desc.get("targetDependencyMap", {})
    builds = {}
    for name in names:
        cmd = commands.get(name)
        if cmd is None:
            fail(f"target {name} is not in {bin_dir}/description.json; run `swift build --build-tests`")
        flags: list[str] = []
        args = cmd.get("otherArguments", [])
        i = 0
        while i < len(args):
            a = args[i]
            if a in ("-Xcc", "-Xfrontend", "-Xllvm", "-Xclang-linker", "-Xlinker") and i + 1 < len(args):
                if a == "-Xcc" or a == "-Xfrontend":
                    flags += args[i: i + 2]
                i += 2
                continue
            if a in DROP_OPTIONS:
                i += 2 if DROP_OPTIONS[a] else 1
                continue
            if re.fullmatch(r"-j\d+", a):
                i += 1
                continue
            flags.append(a)
            i += 1
        # The build's own file list may be older than the tree: take the target directory's files when it has one.
        sources = [Path(s) for s in cmd.get("sources", [])]
        directory = ROOT / "Sources" / name
        if directory.is_dir():
            sources = sorted(directory.rglob("*.swift"))
        builds[name] = TargetBuild(name, sources, flags, cmd.get("importPath", str(bin_dir / "Modules")),
                                   dep_map.get(name, []))
    return builds


# MARK: - Symbol graphs


def extract_module(tc: Toolchain, module: str, out: Path, include: list[str], access: str) -> None:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    cmd = [tc.extractor, "-module-name", module, "-target", tc.triple, "-output-dir", str(out),
           "-minimum-access-level", access]
    for d in include:
        cmd += ["-I", d]
    p = run(cmd)
    if p.returncode != 0 or not any(out.glob("*.symbols.json")):
        fail(f"swift-symbolgraph-extract failed for {module}:\n{p.stderr.strip()[-2000:]}")


def reduce_graphs(graph_dir: Path) -> dict:
    """Symbol graph files of one module → {"symbols": {usr: [parent, title, availability]}}.

    availability: [[domain, introduced or None, obsoleted or None, unavailable], ...] for Apple domains only.
    """
    symbols: dict[str, list] = {}
    parents: dict[str, str] = {}
    defaults: dict[str, list[str]] = {}
    for f in sorted(graph_dir.glob("*.symbols.json")):
        graph = json.loads(f.read_text())
        for s in graph.get("symbols", []):
            usr = s["identifier"]["precise"]
            avail = []
            for a in s.get("availability", []) or []:
                domain = a.get("domain")
                if domain not in APPLE_PLATFORMS:
                    continue

                def ver(k):
                    v = a.get(k)
                    return [v.get("major", 0), v.get("minor", 0), v.get("patch", 0)] if v else None

                avail.append([domain, ver("introduced"), ver("obsoleted"), bool(a.get("isUnconditionallyUnavailable"))])
            title = ".".join(s.get("pathComponents", [])) or s.get("names", {}).get("title", "")
            old = symbols.get(usr)
            if old is None or (avail and not old[2]):
                symbols[usr] = ["", title, avail]
        for r in graph.get("relationships", []):
            if r.get("kind") in ("memberOf", "requirementOf", "optionalRequirementOf"):
                parents.setdefault(r["source"], r["target"])
            elif r.get("kind") == "defaultImplementationOf":
                defaults.setdefault(r["target"], []).append(r["source"])
    for usr, parent in parents.items():
        if usr in symbols:
            symbols[usr][0] = parent
        else:
            symbols[usr] = [parent, "", []]
    return {"format": CACHE_FORMAT, "symbols": symbols, "defaults": defaults}


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


class Availability:
    """Every loaded module's symbols, with availability inherited from parents."""

    def __init__(self) -> None:
        self.symbols: dict[str, list] = {}
        self.module_of: dict[str, str] = {}
        self.defaults: dict[str, list[str]] = {}
        self._effective: dict[str, dict] = {}

    def add(self, module: str, reduced: dict) -> None:
        for usr, entry in reduced["symbols"].items():
            old = self.symbols.get(usr)
            if old is None or (entry[2] and not old[2]) or (entry[1] and not old[1]):
                self.symbols[usr] = entry
                self.module_of[usr] = module
        for requirement, impls in reduced.get("defaults", {}).items():
            self.defaults.setdefault(requirement, []).extend(impls)

    def effective(self, usr: str, depth: int = 0) -> dict:
        """{platform: (introduced or None, obsoleted or None, unavailable)} for the platforms that say anything."""
        if usr in self._effective:
            return self._effective[usr]
        entry = self.symbols.get(usr)
        result: dict[str, tuple] = {}
        if entry is not None:
            parent = entry[0]
            if parent and parent != usr and depth < 32:
                result = dict(self.effective(parent, depth + 1))
            for domain, intro, obs, unavailable in entry[2]:
                pi, po, pu = result.get(domain, (None, None, False))
                intro_t = tuple(intro) if intro else None
                obs_t = tuple(obs) if obs else None
                if intro_t and (pi is None or intro_t > pi):
                    pi = intro_t
                if obs_t and (po is None or obs_t < po):
                    po = obs_t
                result[domain] = (pi, po, pu or unavailable)
        self._effective[usr] = result
        return result

    def referenced(self, usr: str) -> dict:
        """Availability of a reference. A protocol requirement newer than its default implementation (Swift 6
        made `FixedWidthInteger.&*` a requirement for Int128, macOS 15) is fine: where the requirement is not
        available, Apple's compiler calls the default implementation, while on Linux the index records the
        requirement. So per platform, the most available of the requirement and its default implementations."""
        eff = self.effective(usr)
        impls = self.defaults.get(usr)
        if not eff or not impls:
            return eff
        result = {}
        for platform, (intro, obs, unavailable) in eff.items():
            best = (intro, obs, unavailable)
            for impl in impls:
                other = self.effective(impl).get(platform)
                if other is None:
                    best = None
                    break
                if (not other[2] and other[1] is None
                        and (best[2] or best[1] is not None or (other[0] or (0,)) < (best[0] or (0,)))):
                    best = other
            if best is not None:
                result[platform] = best
        return result

    def title(self, usr: str) -> str:
        entry = self.symbols.get(usr)
        return entry[1] if entry and entry[1] else ""


def load_availability(tc: Toolchain, cache: Path, dep_modules: list[tuple[str, Path, list[str]]],
                      log) -> Availability:
    """Toolchain modules (cached by toolchain) and dependency modules (cached by module file hash)."""
    avail = Availability()
    tc_dir = cache / "symbolgraphs" / tc.key
    if (cache / "symbolgraphs").is_dir():
        for other in (cache / "symbolgraphs").iterdir():
            if other.name != tc.key:
                shutil.rmtree(other, ignore_errors=True)  # another toolchain's, or an older cache format
    tc_dir.mkdir(parents=True, exist_ok=True)
    for module in TOOLCHAIN_MODULES:
        reduced_path = tc_dir / f"{module}.json"
        if not reduced_path.exists():
            t0 = time.monotonic()
            raw = cache / "tmp-graphs" / module
            extract_module(tc, module, raw, [], "public")
            reduced = reduce_graphs(raw)
            shutil.rmtree(raw)
            tmp = reduced_path.with_suffix(".tmp")
            tmp.write_text(json.dumps(reduced, separators=(",", ":")))
            tmp.replace(reduced_path)
            log(f"extracted {module} ({time.monotonic() - t0:.1f}s)")
        avail.add(module, json.loads(reduced_path.read_text()))
    dep_dir = cache / "symbolgraphs" / tc.key / "deps"
    dep_dir.mkdir(parents=True, exist_ok=True)
    for module, swiftmodule, include in dep_modules:
        digest = file_digest(swiftmodule)
        reduced_path = dep_dir / f"{module}-{digest}.json"
        if not reduced_path.exists():
            t0 = time.monotonic()
            for old in dep_dir.glob(f"{module}-*.json"):
                old.unlink()
            raw = cache / "tmp-graphs" / module
            # The package's own modules: internal declarations too (the debug build keeps them), so that a call
            # to the module's own `@available(iOS 17, *)` function is checked like any other.
            extract_module(tc, module, raw, include, "internal" if is_package_target(module) else "public")
            reduced = reduce_graphs(raw)
            shutil.rmtree(raw)
            tmp = reduced_path.with_suffix(".tmp")
            tmp.write_text(json.dumps(reduced, separators=(",", ":")))
            tmp.replace(reduced_path)
            log(f"extracted {module} ({time.monotonic() - t0:.1f}s)")
        avail.add(module, json.loads(reduced_path.read_text()))
    return avail


# MARK: - Index store (libIndexStore through ctypes)

ROLE_DECLARATION = 1 << 0
ROLE_DEFINITION = 1 << 1
ROLE_REFERENCE = 1 << 2
ROLE_IMPLICIT = 1 << 8


class _StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]

    def text(self) -> str:
        return ctypes.string_at(self.data, self.length).decode("utf-8", "replace") if self.length else ""


@dataclass
class Occurrence:
    path: str
    line: int
    column: int
    usr: str
    name: str
    roles: int


class IndexStore:
    def __init__(self, lib_path: str) -> None:
        from ctypes import CFUNCTYPE, POINTER, c_bool, c_char_p, c_uint, c_uint64, c_void_p

        lib = ctypes.CDLL(lib_path)

        def fn(name, res, *args):
            f = getattr(lib, name)
            f.restype = res
            f.argtypes = list(args)
            return f

        self.UNIT_CB = CFUNCTYPE(c_bool, c_void_p, _StringRef)
        self.PTR_CB = CFUNCTYPE(c_bool, c_void_p, c_void_p)
        self.store_create = fn("indexstore_store_create", c_void_p, c_char_p, POINTER(c_void_p))
        self.store_dispose = fn("indexstore_store_dispose", None, c_void_p)
        self.error_description = fn("indexstore_error_get_description", c_char_p, c_void_p)
        self.units_apply = fn("indexstore_store_units_apply_f", c_bool, c_void_p, c_uint, c_void_p, self.UNIT_CB)
        self.unit_create = fn("indexstore_unit_reader_create", c_void_p, c_void_p, c_char_p, POINTER(c_void_p))
        self.unit_dispose = fn("indexstore_unit_reader_dispose", None, c_void_p)
        self.unit_main_file = fn("indexstore_unit_reader_get_main_file", _StringRef, c_void_p)
        self.unit_deps = fn("indexstore_unit_reader_dependencies_apply_f", c_bool, c_void_p, c_void_p, self.PTR_CB)
        self.dep_kind = fn("indexstore_unit_dependency_get_kind", c_uint, c_void_p)
        self.dep_name = fn("indexstore_unit_dependency_get_name", _StringRef, c_void_p)
        self.dep_path = fn("indexstore_unit_dependency_get_filepath", _StringRef, c_void_p)
        self.record_create = fn("indexstore_record_reader_create", c_void_p, c_void_p, c_char_p, POINTER(c_void_p))
        self.record_dispose = fn("indexstore_record_reader_dispose", None, c_void_p)
        self.occurrences_apply = fn("indexstore_record_reader_occurrences_apply_f", c_bool, c_void_p, c_void_p,
                                    self.PTR_CB)
        self.occ_symbol = fn("indexstore_occurrence_get_symbol", c_void_p, c_void_p)
        self.occ_roles = fn("indexstore_occurrence_get_roles", c_uint64, c_void_p)
        self.occ_line_col = fn("indexstore_occurrence_get_line_col", None, c_void_p, POINTER(c_uint), POINTER(c_uint))
        self.sym_usr = fn("indexstore_symbol_get_usr", _StringRef, c_void_p)
        self.sym_name = fn("indexstore_symbol_get_name", _StringRef, c_void_p)

    def occurrences(self, store_path: Path) -> list[Occurrence]:
        err = ctypes.c_void_p()
        store = self.store_create(str(store_path).encode(), ctypes.byref(err))
        if not store:
            fail(f"cannot open index store {store_path}: {self.error_description(err)}")
        units: list[str] = []
        self.units_apply(store, 0, None, self.UNIT_CB(lambda _c, name: units.append(name.text()) or True))
        records: list[tuple[str, str]] = []
        for unit in units:
            reader = self.unit_create(store, unit.encode(), ctypes.byref(err))
            if not reader:
                continue
            main = self.unit_main_file(reader).text()

            def on_dep(_c, dep, main=main):
                if self.dep_kind(dep) == 2:  # a record: the unit's own source file
                    path = self.dep_path(dep).text()
                    if path == main:
                        records.append((self.dep_name(dep).text(), path))
                return True

            self.unit_deps(reader, None, self.PTR_CB(on_dep))
            self.unit_dispose(reader)
        found: list[Occurrence] = []
        line, col = ctypes.c_uint(), ctypes.c_uint()
        for record, path in sorted(set(records)):
            reader = self.record_create(store, record.encode(), ctypes.byref(err))
            if not reader:
                fail(f"cannot read index record {record}")

            def on_occurrence(_c, occ, path=path):
                roles = self.occ_roles(occ)
                if roles & ROLE_REFERENCE and not roles & (ROLE_DECLARATION | ROLE_DEFINITION):
                    sym = self.occ_symbol(occ)
                    self.occ_line_col(occ, ctypes.byref(line), ctypes.byref(col))
                    found.append(Occurrence(path, line.value, col.value, self.sym_usr(sym).text(),
                                            self.sym_name(sym).text(), roles))
                return True

            self.occurrences_apply(reader, None, self.PTR_CB(on_occurrence))
            self.record_dispose(reader)
        self.store_dispose(store)
        return found


# MARK: - `#if` regions, evaluated for each Apple platform (True, False or None for unknown)

OS_NAMES = {"macOS": {"macOS", "OSX"}, "iOS": {"iOS"}, "tvOS": {"tvOS"}, "watchOS": {"watchOS"},
            "visionOS": {"visionOS", "xrOS"}, "macCatalyst": {"iOS"}}
APPLE_MODULES_ALL = {"Darwin", "Foundation", "Security", "CryptoKit", "Network", "Dispatch", "ObjectiveC", "os",
                     "Combine", "CoreFoundation", "Synchronization", "Observation", "SwiftUI", "OSLog",
                     "_Concurrency", "_StringProcessing", "RegexBuilder"}
APPLE_MODULES_BY_PLATFORM = {"UIKit": {"iOS", "tvOS", "visionOS", "macCatalyst"}, "AppKit": {"macOS", "macCatalyst"},
                             "WatchKit": {"watchOS"}}
LINUX_MODULES = {"Glibc", "Musl", "Foundation", "FoundationEssentials", "FoundationInternationalization",
                 "FoundationNetworking", "FoundationXML", "Dispatch", "Synchronization", "Observation", "_Concurrency",
                 "_StringProcessing", "RegexBuilder", "XCTest", "Testing"}
NOT_LINUX_MODULES = {"Darwin", "Security", "CryptoKit", "Network", "ObjectiveC", "os", "Combine", "SwiftUI", "OSLog",
                     "UIKit", "AppKit", "WatchKit", "CoreFoundation"}
NOT_APPLE_MODULES = {"Glibc", "Musl", "FoundationNetworking", "FoundationXML", "Android", "Bionic", "WinSDK",
                     "WASILibc", "ucrt", "CRT", "wasi_pthread"}


def _tokenize_condition(text: str) -> list[str]:
    return re.findall(r"\|\||&&|!|\(|\)|,|[<>=]=?|[\w.]+", text)


def evaluate_condition(text: str, platform: str, known_modules: set[str]):
    """Three-valued: True, False, or None (cannot tell on Linux; such code is checked)."""
    tokens = _tokenize_condition(text)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def t_not(v):
        return None if v is None else not v

    def t_and(a, b):
        if a is False or b is False:
            return False
        return None if a is None or b is None else True

    def t_or(a, b):
        if a is True or b is True:
            return True
        return None if a is None or b is None else False

    def primary():
        tok = take()
        if tok == "!":
            return t_not(primary())
        if tok == "(":
            v = disjunction()
            if peek() == ")":
                take()
            return v
        if peek() == "(":
            take()
            args = []
            depth = 1
            while pos < len(tokens) and depth:
                t = take()
                if t == "(":
                    depth += 1
                elif t == ")":
                    depth -= 1
                    if depth == 0:
                        break
                args.append(t)
            arg = args[0] if args else ""
            if platform == "Linux":  # only to tell which code this machine does not compile
                if tok == "os":
                    return arg == "Linux"
                if tok == "canImport":
                    module = arg.split(".")[0]
                    if module in LINUX_MODULES or module in known_modules:
                        return True
                    return False if module in NOT_LINUX_MODULES else None
                return None
            if tok == "os":
                return arg in OS_NAMES.get(platform, set())
            if tok == "canImport":
                module = arg.split(".")[0]
                if module in NOT_APPLE_MODULES:
                    return False
                if module in APPLE_MODULES_ALL or module in known_modules:
                    return True
                if module in APPLE_MODULES_BY_PLATFORM:
                    return platform in APPLE_MODULES_BY_PLATFORM[module]
                return None
            if tok == "_runtime":
                return arg == "_ObjC"
            if tok == "_endian":
                return arg == "little"
            if tok == "_pointerBitWidth":
                return None if platform == "watchOS" else arg == "_64"
            return None  # arch, targetEnvironment, compiler, swift, hasFeature, hasAttribute, ...
        if tok in ("true", "false"):
            return tok == "true"
        return None  # a -D flag: as unknown as anything else

    def conjunction():
        v = primary()
        while peek() == "&&":
            take()
            v = t_and(v, primary())
        return v

    def disjunction():
        v = conjunction()
        while peek() == "||":
            take()
            v = t_or(v, conjunction())
        return v

    try:
        return disjunction()
    except IndexError:
        return None


@dataclass
class Clause:
    line: int
    kind: str  # if, elseif, else
    condition: str


@dataclass
class IfChain:
    clauses: list[Clause] = field(default_factory=list)
    end_line: int = 0


DIRECTIVE = re.compile(r"^\s*#(if|elseif|else|endif)\b(.*)$")


def strip_comment(text: str) -> str:
    return re.sub(r"//.*$", "", text).strip()


def if_structure(lines: list[str]) -> tuple[list[list[tuple[IfChain, int]]], list[IfChain]]:
    """For each line (0-based), the enclosing `#if` clauses (chain, clause index), outermost first."""
    stack: list[tuple[IfChain, int]] = []
    per_line: list[list[tuple[IfChain, int]]] = []
    chains: list[IfChain] = []
    in_block_comment = False
    in_multiline_string = False
    for number, raw in enumerate(lines, start=1):
        line = raw
        directive = None
        if not in_block_comment and not in_multiline_string:
            directive = DIRECTIVE.match(line)
        if directive:
            kind, rest = directive.group(1), strip_comment(directive.group(2))
            if kind == "if":
                chain = IfChain([Clause(number, "if", rest)])
                chains.append(chain)
                stack.append((chain, 0))
            elif kind in ("elseif", "else") and stack:
                chain, _ = stack.pop()
                chain.clauses.append(Clause(number, kind, rest))
                stack.append((chain, len(chain.clauses) - 1))
            elif kind == "endif" and stack:
                chain, _ = stack.pop()
                chain.end_line = number
            per_line.append(list(stack))
            continue
        per_line.append(list(stack))
        # Track block comments and multi-line strings, so a `#if` inside them is not taken for a directive.
        i = 0
        while i < len(line):
            if in_block_comment:
                j = line.find("*/", i)
                if j < 0:
                    break
                in_block_comment, i = False, j + 2
            elif in_multiline_string:
                j = line.find('"""', i)
                if j < 0:
                    break
                in_multiline_string, i = False, j + 3
            elif line.startswith("//", i):
                break
            elif line.startswith("/*", i):
                in_block_comment, i = True, i + 2
            elif line.startswith('"""', i):
                in_multiline_string, i = True, i + 3
            elif line[i] == '"':
                j = i + 1
                while j < len(line) and line[j] != '"':
                    j += 2 if line[j] == "\\" else 1
                i = j + 1
            else:
                i += 1
    return per_line, chains


def clause_active(chain: IfChain, index: int, platform: str, known: set[str]):
    result = True
    for i, clause in enumerate(chain.clauses[: index + 1]):
        value = True if clause.kind == "else" else evaluate_condition(clause.condition, platform, known)
        if i < index:
            value = None if value is None else not value
        if value is False:
            return False
        if value is None:
            result = None
    return result


def line_active(enclosing: list[tuple[IfChain, int]], platform: str, known: set[str]):
    result = True
    for chain, index in enclosing:
        v = clause_active(chain, index, platform, known)
        if v is False:
            return False
        if v is None:
            result = None
    return result


# MARK: - Context from the AST: @available on enclosing declarations, #available / #unavailable


@dataclass
class Context:
    raised: dict  # platform → version the code may assume
    unavailable: frozenset  # platforms where this code never runs


def _attrs_context(attrs, ctx: Context, apple: list[str]) -> Context:
    raised = dict(ctx.raised)
    unavailable = set(ctx.unavailable)
    for a in attrs or []:
        if not isinstance(a, dict) or a.get("_kind") != "available_attr":
            continue
        domain = a.get("domain")
        if a.get("unavailable") or a.get("obsoleted"):
            if domain == "*":
                unavailable.update(apple)
            elif domain in apple:
                unavailable.add(domain)
        if a.get("introduced") and domain in apple:
            v = parse_version(a["introduced"])
            if v > raised.get(domain, (0, 0, 0)):
                raised[domain] = v
    return Context(raised, frozenset(unavailable))


def _availability_query(conditions, source: bytes, stmt_range) -> tuple[dict, bool] | None:
    """The platforms and versions of an `#available` / `#unavailable` condition, and whether it is `#unavailable`."""
    for c in conditions or []:
        if isinstance(c, dict) and c.get("_kind") == "#available":
            specs = {}
            wildcard = False
            for q in c.get("queries", []):
                if q.get("domain") == "*":
                    wildcard = True
                elif q.get("version"):
                    specs[q["domain"]] = parse_version(q["version"])
            negated = not wildcard
            if stmt_range:
                head = source[stmt_range["start"]: stmt_range["end"] + 1]
                negated = b"#unavailable" in head.split(b"{")[0] or negated
            return specs, negated
    return None


def _raise(ctx: Context, specs: dict) -> Context:
    raised = dict(ctx.raised)
    for domain, v in specs.items():
        if v > raised.get(domain, (0, 0, 0)):
            raised[domain] = v
    return Context(raised, ctx.unavailable)


def context_ranges(ast: dict, source: bytes, apple: list[str]) -> list[tuple[int, int, Context]]:
    """(start, end, context) for every declaration, brace and guarded region with a non-trivial context."""
    out: list[tuple[int, int, Context]] = []

    def record(node_range, ctx: Context):
        if node_range and (ctx.raised or ctx.unavailable):
            out.append((node_range["start"], node_range["end"], ctx))

    def walk(node, ctx: Context):
        if isinstance(node, list):
            for n in node:
                walk(n, ctx)
            return
        if not isinstance(node, dict):
            return
        kind = node.get("_kind", "")
        if kind.endswith("_decl") and "attrs" in node:
            ctx = _attrs_context(node["attrs"], ctx, apple)
        record(node.get("range"), ctx)
        if kind == "if_stmt":
            query = _availability_query(node.get("conditions"), source, node.get("range"))
            if query:
                specs, negated = query
                then_ctx = ctx if negated else _raise(ctx, specs)
                else_ctx = _raise(ctx, specs) if negated else ctx
                walk(node.get("conditions"), ctx)
                record((node.get("then_stmt") or {}).get("range"), then_ctx)
                walk(node.get("then_stmt"), then_ctx)
                if node.get("else_stmt") is not None:
                    record(node["else_stmt"].get("range"), else_ctx)
                    walk(node["else_stmt"], else_ctx)
                return
        if kind == "brace_stmt":
            current = ctx
            brace_end = (node.get("range") or {}).get("end")
            for element in node.get("elements", []) or []:
                if isinstance(element, dict) and element.get("_kind") == "guard_stmt":
                    query = _availability_query(element.get("conditions"), source, element.get("range"))
                    if query:
                        specs, negated = query
                        walk(element.get("conditions"), current)
                        body_ctx = _raise(current, specs) if negated else current
                        record((element.get("body") or {}).get("range"), body_ctx)
                        walk(element.get("body"), body_ctx)
                        if not negated:
                            current = _raise(current, specs)
                            if element.get("range") and brace_end is not None:
                                record({"start": element["range"]["end"] + 1, "end": brace_end}, current)
                        continue
                walk(element, current)
            for key, value in node.items():
                if key != "elements" and isinstance(value, (dict, list)):
                    walk(value, ctx)
            return
        for key, value in node.items():
            if isinstance(value, (dict, list)) and key not in ("attrs",):
                walk(value, ctx)

    walk(ast, Context({}, frozenset()))
    return out


def context_at(ranges: list[tuple[int, int, Context]], offset: int) -> Context:
    best = None
    for start, end, ctx in ranges:
        if start <= offset <= end and (best is None or end - start < best[1] - best[0]):
            best = (start, end, ctx)
    return best[2] if best else Context({}, frozenset())


# MARK: - Linux-only imports

IMPORT_LINE = re.compile(
    r"^\s*(?:@[\w]+(?:\([^)]*\))?\s+)*import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?"
    r"(\w+)"
)


@dataclass
class Finding:
    path: str
    line: int
    column: int
    message: str
    key: tuple = ()

    def render(self, root: Path) -> str:
        try:
            shown = str(Path(self.path).resolve().relative_to(root))
        except ValueError:
            shown = self.path
        return f"{shown}:{self.line}:{self.column}: {self.message}"


def check_imports(path: Path, lines: list[str], per_line, apple: list[str], known: set[str]) -> list[Finding]:
    findings = []
    for number, line in enumerate(lines, start=1):
        match = IMPORT_LINE.match(line)
        if not match or match.group(1) not in LINUX_ONLY_MODULES:
            continue
        module = match.group(1)
        enclosing = per_line[number - 1]
        active = {p: line_active(enclosing, p, known) for p in apple}
        exposed = [p for p in apple if active[p] is not False]
        if exposed:
            findings.append(Finding(str(path), number, line.index("import") + 1,
                                    f"`import {module}` is Linux-only and not excluded by `#if` on "
                                    f"{', '.join(exposed)} (guard it: `#if canImport({module})`)"))
            continue
        if module == "FoundationNetworking":
            continue  # Apple's Foundation has what it provides
        # Glibc / Musl: the `#if` chain that excludes it must have a branch that Apple platforms take.
        excluding = [(c, i) for c, i in enclosing if all(clause_active(c, i, p, known) is False for p in apple)]
        if not excluding:
            continue  # excluded on each platform by a different `#if`: nothing simple to ask for
        chain, index = excluding[-1]
        has_apple_branch = any(
            clause_active(chain, j, p, known) is not False
            for j in range(len(chain.clauses)) if j != index for p in apple
        )
        if not has_apple_branch:
            findings.append(Finding(str(path), number, line.index("import") + 1,
                                    f"`import {module}` has no Apple branch in its `#if` "
                                    f"(add `#elseif canImport(Darwin)` / `import Darwin`, or an `#else`)"))
    return findings


# MARK: - Type-checking a module for its AST and index


def frontend_job(tc: Toolchain, module: str, sources: list[Path], flags: list[str], import_path: str | None,
                 work: Path, cache: Path) -> tuple[list[str], list[Path]]:
    """The frontend command the driver would run, turned into one job with every file primary."""
    index_dir = work / "index"
    cmd = [tc.swiftc, "-dump-ast", "-dump-ast-format", "json", "-module-name", module,
           "-module-cache-path", str(cache / "ModuleCache"), "-index-store-path", str(index_dir),
           "-index-ignore-system-modules"] + flags
    if import_path:
        cmd += ["-I", import_path]
    cmd += [str(s) for s in sources] + ["-###"]
    p = run(cmd)
    jobs = [line for line in p.stdout.splitlines() if "-frontend" in line and "-dump-ast" in line]
    if p.returncode != 0 or not jobs:
        fail(f"cannot plan the type-check of {module}:\n{p.stderr.strip()[-2000:]}")
    args = shlex.split(jobs[0])
    source_set = {str(s) for s in sources}
    out: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-primary-file":
            i += 1
            continue
        if a == "-o":
            i += 2
            continue
        if a in source_set:
            out += ["-primary-file", a]
        else:
            out.append(a)
        i += 1
    ast_files = []
    for n, s in enumerate(sources):
        ast_file = work / "ast" / f"{n:03d}-{s.stem}.json"
        ast_files.append(ast_file)
        out += ["-o", str(ast_file)]
    return out, ast_files


@dataclass
class ModuleAudit:
    module: str
    sources: list[Path]
    flags: list[str] = field(default_factory=list)
    import_path: str | None = None


def typecheck(tc: Toolchain, audit: ModuleAudit, cache: Path) -> tuple[Path, dict[str, Path]]:
    work = cache / "work" / audit.module
    if work.exists():
        shutil.rmtree(work)
    (work / "ast").mkdir(parents=True)
    cmd, ast_files = frontend_job(tc, audit.module, audit.sources, audit.flags, audit.import_path, work, cache)
    p = run(cmd)
    if p.returncode != 0:
        fail(f"{audit.module} does not type-check with the debug build's flags (run `swift build --build-tests`"
             f" first):\n{p.stderr.strip()[-3000:]}")
    return work / "index", {str(s): a for s, a in zip(audit.sources, ast_files)}


# MARK: - The audit


def audit_modules(tc: Toolchain, audits: list[ModuleAudit], avail: Availability, floors: dict[str, Version],
                  cache: Path, known_modules: set[str], log) -> tuple[list[Finding], list[str]]:
    apple = [p for p in APPLE_PLATFORMS if p in floors]
    index = IndexStore(tc.index_lib)
    findings: list[Finding] = []
    apple_only: list[str] = []
    for audit in audits:
        if not audit.sources:
            continue
        t0 = time.monotonic()
        store, ast_files = typecheck(tc, audit, cache)
        occurrences = index.occurrences(store)
        log(f"{audit.module}: {len(audit.sources)} files, {len(occurrences)} references "
            f"({time.monotonic() - t0:.1f}s)")
        by_file: dict[str, list[Occurrence]] = {}
        for o in occurrences:
            by_file.setdefault(o.path, []).append(o)
        for source in audit.sources:
            path = str(source)
            data = source.read_bytes()
            lines = data.decode("utf-8", "replace").splitlines()
            per_line, _ = if_structure(lines)
            findings += check_imports(source, lines, per_line, apple, known_modules)
            skipped = [n for n, enclosing in enumerate(per_line, start=1)
                       if enclosing and line_active(enclosing, "Linux", known_modules) is False]
            if skipped:
                spans, start = [], skipped[0]
                for a, b in zip(skipped, skipped[1:] + [None]):
                    if b != a + 1:
                        spans.append(f"{start}-{a}" if a > start else f"{start}")
                        start = b
                apple_only.append(f"{Finding(path, 0, 0, '').render(ROOT).split(':')[0]}:{','.join(spans)}")
            occs = by_file.get(path) or by_file.get(os.path.realpath(path)) or []
            if not occs:
                continue
            ast_path = ast_files.get(path)
            ast = json.loads(ast_path.read_text()) if ast_path and ast_path.exists() else {}
            ranges = context_ranges(ast, data, apple)
            line_starts = [0]
            for i, b in enumerate(data):
                if b == 10:
                    line_starts.append(i + 1)
            for o in occs:
                if o.roles & ROLE_IMPLICIT and o.name == "next(isolation:)":
                    # `for await` calls next(isolation:) (macOS 15 / iOS 18) only where the deployment target
                    # has it, and next() elsewhere (SE-0421); Linux has no deployment target, so it is recorded.
                    continue
                eff = avail.referenced(o.usr)
                if not eff:
                    continue
                offset = line_starts[o.line - 1] + o.column - 1 if 0 < o.line <= len(line_starts) else 0
                enclosing = per_line[o.line - 1] if 0 < o.line <= len(per_line) else []
                ctx = None
                problems = []
                for platform in apple:
                    info = eff.get(platform)
                    if not info:
                        continue
                    introduced, obsoleted, unavailable = info
                    if line_active(enclosing, platform, known_modules) is False:
                        continue  # `#if` leaves this line out there
                    if ctx is None:
                        ctx = context_at(ranges, offset)
                    if platform in ctx.unavailable:
                        continue
                    floor = max(floors[platform], ctx.raised.get(platform, (0, 0, 0)))
                    if unavailable:
                        problems.append(f"unavailable on {platform}")
                    elif obsoleted is not None:
                        problems.append(f"obsoleted in {platform} {vstr(obsoleted)}")
                    elif introduced is not None and introduced > floor:
                        note = "" if floor == floors[platform] else f" (code guarded for {vstr(floor)})"
                        problems.append(f"{platform} {vstr(introduced)}{note}")
                if problems:
                    name = f"{avail.module_of.get(o.usr, '?')}.{avail.title(o.usr) or o.name}"
                    introduced_in = [p for p in problems if not p.startswith(("unavailable", "obsoleted"))]
                    other = [p for p in problems if p.startswith(("unavailable", "obsoleted"))]
                    parts = ([f"introduced in {', '.join(introduced_in)}"] if introduced_in else []) + other
                    findings.append(Finding(path, o.line, o.column, f"{name}: {'; '.join(parts)}",
                                            (path, o.line, o.usr)))
    unique, seen = [], set()
    for f in findings:
        key = f.key or (f.path, f.line, f.message)
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return sorted(unique, key=lambda f: (f.path, f.line, f.column, f.message)), apple_only


def dependency_modules(bin_dir: Path, builds: dict[str, TargetBuild]) -> tuple[list[tuple[str, Path, list[str]]],
                                                                               set[str]]:
    """Every Swift module the audited targets see, with -I paths for the C modules they import."""
    modules_dir = Path(next(iter(builds.values())).import_path) if builds else bin_dir / "Modules"
    names: list[str] = []
    includes: list[str] = []
    for b in builds.values():
        for n in [b.name] + b.deps:
            if n not in names:
                names.append(n)
        args = b.flags
        for i, a in enumerate(args):
            if a == "-Xcc" and i + 1 < len(args):
                nxt = args[i + 1]
                if nxt.startswith("-fmodule-map-file="):
                    d = str(Path(nxt.split("=", 1)[1]).parent)
                    if d not in includes:
                        includes.append(d)
            if a == "-Xcc" and i + 3 < len(args) and args[i + 1] == "-I" and args[i + 2] == "-Xcc":
                if args[i + 3] not in includes:
                    includes.append(args[i + 3])
    result = []
    for n in names:
        swiftmodule = modules_dir / f"{n}.swiftmodule"
        if swiftmodule.exists():
            result.append((n, swiftmodule, [str(modules_dir)] + includes))
    return result, set(names)


def is_package_target(module: str) -> bool:
    return (ROOT / "Sources" / module).is_dir() or (ROOT / "Tests" / module).is_dir()



def client_compile_context():
    """The toolchain, the debug build's bin folder, PinSetClient's target build and the `-I` flags that reach its
    dependency modules: what a script needs to compile a file against PinSetClient (apple_stub_check.py,
    client_docs_test.py)."""
    tc = find_toolchain()
    bin_dir = find_bin_dir(tc, None)
    builds = load_target_builds(bin_dir, ["PinSetClient"])
    client = builds["PinSetClient"]
    deps, _ = dependency_modules(bin_dir, builds)
    includes = next((inc for name, _, inc in deps if name == "PinSetClient"), [client.import_path])
    return tc, bin_dir, client, [flag for d in includes for flag in ("-I", d)]

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--targets", nargs="*", default=None, help="targets of Package.swift to audit")
    parser.add_argument("--files", nargs="*", default=None, help="loose Swift files, audited as one module")
    parser.add_argument("--module-name", default="AppleAuditFixture")
    parser.add_argument("--like-target", default=None,
                        help="with --files: compile them with this target's flags and dependencies")
    parser.add_argument("--bin-path", default=None, help="the debug build directory (default: .build/debug)")
    parser.add_argument("--cache", default=str(ROOT / ".build" / "apple-audit"))
    parser.add_argument("--package", default=str(ROOT / "Package.swift"))
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)

    started = time.monotonic()
    log = (lambda _m: None) if args.quiet else (lambda m: print(f"apple-audit: {m}", file=sys.stderr))
    floors = parse_floors(Path(args.package))
    tc = find_toolchain()
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    if args.files and args.like_target:
        sources = [Path(f).resolve() for f in args.files]
        bin_dir = find_bin_dir(tc, args.bin_path)
        builds = load_target_builds(bin_dir, [args.like_target])
        like = builds[args.like_target]
        audits = [ModuleAudit(args.module_name, sources, like.flags, like.import_path)]
        deps, known = dependency_modules(bin_dir, builds)
    elif args.files:
        sources = [Path(f).resolve() for f in args.files]
        audits = [ModuleAudit(args.module_name, sources, ["-parse-as-library", "-swift-version", "6"])]
        deps: list = []
        known: set[str] = set()
    else:
        bin_dir = find_bin_dir(tc, args.bin_path)
        builds = load_target_builds(bin_dir, args.targets or DEFAULT_TARGETS)
        audits = [ModuleAudit(b.name, b.sources, b.flags, b.import_path) for b in builds.values()]
        deps, known = dependency_modules(bin_dir, builds)
    avail = load_availability(tc, cache, deps, log)
    findings, apple_only = audit_modules(tc, audits, avail, floors, cache, known, log)
    if apple_only and not args.files:
        print("apple-audit: not compiled on Linux, so not audited (needs an Xcode build): " + " ".join(apple_only))
    floors_text = ", ".join(f"{p} {vstr(v)}" for p, v in floors.items())
    for f in findings:
        print(f.render(ROOT))
    what = ", ".join(a.module for a in audits)
    elapsed = time.monotonic() - started
    if findings:
        print(f"apple-audit: {len(findings)} finding(s) in {what}; floors {floors_text} ({elapsed:.1f}s)")
        return 1
    print(f"apple-audit: {what}: no API newer than {floors_text}, no unguarded Linux-only import ({elapsed:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
