#!/usr/bin/env python3
"""Apple-only client code type-checked on Linux against stand-ins (issue 38, item 3), part of `make check-apple`.

Code under `#if canImport(Security)` is compiled only on Apple platforms, so the availability audit cannot see it,
and examples/ (the Alamofire adapter an app copies) imports a package this one does not depend on. Here they are
type-checked with the Swift 6 flags of the debug build (`swift build --build-tests` first) against hand-written
stand-ins of the Apple and third-party declarations they use (scripts/apple_stubs/: Security, Alamofire):

1. The stand-ins are compiled as modules `Security` and `Alamofire` in a temporary folder.
2. Sources/PinSetClient/Apple/PinnedServerTrustEvaluator.swift (with `@testable import PinSetClient` added, as it
   is compiled here outside its module) and examples/Alamofire/*.swift are type-checked as one module, with and
   without DEBUG, warnings as errors.

What this proves: the adapter and the example are well-typed Swift 6 against those signatures, and the example
uses PinSetClient's real API. What it does not: that the stand-ins match Apple's SDK and Alamofire exactly (they are
written from the documentation), nor anything at run time. The files that use URLSession's trust challenges
(`URLProtectionSpace.serverTrust` is declared unavailable on Linux, so no stand-in can replace it) and WebKit stay
unchecked here; one Xcode build is still needed for them.

Exit status: 0 passed, 1 a check failed, 2 it could not run.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import apple_audit as aa  # noqa: E402  (the build-description reader the availability audit uses)

ROOT = aa.ROOT
STUBS = ROOT / "scripts" / "apple_stubs"
CHECKED = [ROOT / "Sources" / "PinSetClient" / "Apple" / "PinnedServerTrustEvaluator.swift"]
EXAMPLES = sorted((ROOT / "examples" / "Alamofire").glob("*.swift"))


def check(ok: bool, what: str, detail: str = "") -> None:
    if not ok:
        print(f"apple-stub-check: FAIL: {what}\n{detail[-4000:]}", file=sys.stderr)
        sys.exit(1)
    print(f"apple-stub-check: ok: {what}")


def main() -> int:
    tc, bin_dir, client, include_flags = aa.client_compile_context()
    # The C modules' -Xcc pairs of the target's flags, kept as pairs.
    xcc: list[str] = []
    i = 0
    while i < len(client.flags):
        if client.flags[i] == "-Xcc" and i + 1 < len(client.flags):
            xcc += client.flags[i:i + 2]
            i += 2
        else:
            i += 1
    with tempfile.TemporaryDirectory(prefix="pinset-apple-stubs.") as tmp:
        work = Path(tmp)
        modules = work / "modules"
        modules.mkdir()
        common = [tc.swiftc, "-module-cache-path", str(work / "cache"), "-target", tc.triple, "-swift-version", "6"]
        for name in ("Security", "Alamofire"):
            p = subprocess.run(common + ["-emit-module", "-parse-as-library", "-module-name", name,
                                         "-emit-module-path", str(modules / f"{name}.swiftmodule"), "-I", str(modules),
                                         str(STUBS / f"{name}.swift")], capture_output=True, text=True)
            check(p.returncode == 0, f"the {name} stand-in compiles", p.stderr)
        sources = []
        for path in CHECKED:
            copy = work / path.name
            copy.write_text("@testable import PinSetClient\n" + path.read_text())
            sources.append(str(copy))
        sources += [str(p) for p in EXAMPLES]
        check(bool(EXAMPLES), "examples/Alamofire has its adapter")
        for defines in ([], ["-DDEBUG"]):
            cmd = common + ["-typecheck", "-parse-as-library", "-module-name", "PinSetAppleCheck",
                            "-warnings-as-errors", "-I", str(modules)] + include_flags + xcc + defines + sources
            p = subprocess.run(cmd, capture_output=True, text=True)
            names = ", ".join(Path(s).name for s in sources)
            check(p.returncode == 0, f"{names} type-check{' with DEBUG' if defines else ''}", p.stderr)
    print("apple-stub-check: all passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
