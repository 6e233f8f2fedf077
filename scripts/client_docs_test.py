#!/usr/bin/env python3
"""Issue 38, items 5 and 7, on Linux from the debug build (`swift build --build-tests` first):

1. The DEBUG-only extra root (`PinTrustManager.debugTrustExtraRoot(der:)`) is compiled out of a release build:
   PinSetClient is compiled again with the debug build's flags minus `-DDEBUG` (what `-c release` defines); its
   symbol graph has no such symbol, and an app file that calls it does not compile against that module, while
   it compiles against the debug module.
2. The client snippets of README.md and docs/SWIFT-CLIENT.md (a ```swift block after `<!-- client-snippet -->`) type-check against the debug
   module, as an app's main.swift.
3. The DocC catalog of PinSetClient (Sources/PinSetClient/PinSetClient.docc) builds from the debug module's
   symbol graph with the toolchain's `docc`, warnings as errors.

Exit status: 0 passed, 1 a check failed, 2 it could not run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import apple_audit as aa  # noqa: E402  (the build-description reader the availability audit uses)

ROOT = aa.ROOT
PROBE = """import PinSetClient
func trustProxy(_ manager: PinTrustManager) { manager.debugTrustExtraRoot(der: []) }
"""


def check(ok: bool, what: str, detail: str = "") -> None:
    if not ok:
        print(f"client-docs: FAIL: {what}\n{detail[-3000:]}", file=sys.stderr)
        sys.exit(1)
    print(f"client-docs: ok: {what}")


def main() -> int:
    tc, bin_dir, client, include_flags = aa.client_compile_context()
    with tempfile.TemporaryDirectory(prefix="pinset-client-docs.") as tmp:
        work = Path(tmp)
        # 1. Release: no DEBUG.
        release = work / "release"
        (release / "graph").mkdir(parents=True)
        flags = [f for f in client.flags if f != "-DDEBUG"]
        cmd = [tc.swiftc, "-emit-module", "-module-name", "PinSetClient", "-emit-module-path",
                str(release / "PinSetClient.swiftmodule"), "-emit-symbol-graph", "-emit-symbol-graph-dir",
                str(release / "graph"), "-I", client.import_path, "-module-cache-path", str(work / "cache")]
        cmd += flags + [str(s) for s in client.sources]
        p = subprocess.run(cmd, capture_output=True, text=True)
        check(p.returncode == 0, "PinSetClient compiles without DEBUG", p.stderr)
        names = set()
        for graph in (release / "graph").glob("*.symbols.json"):
            for symbol in json.loads(graph.read_text()).get("symbols", []):
                names.add(symbol["names"]["title"])
        check("PinTrustManager" in names and not any("debugTrustExtraRoot" in n for n in names),
              "the release symbol graph has PinTrustManager and no debugTrustExtraRoot")
        probe = work / "probe.swift"
        probe.write_text(PROBE)
        # The C modules' -Xcc pairs of the target's flags, kept as pairs.
        xcc: list[str] = []
        i = 0
        while i < len(flags):
            if flags[i] == "-Xcc" and i + 1 < len(flags):
                xcc += flags[i:i + 2]
                i += 2
            else:
                i += 1
        common = [tc.swiftc, "-typecheck", "-module-cache-path", str(work / "cache"), "-target", tc.triple,
                  "-swift-version", "6"] + xcc
        p = subprocess.run(common + ["-I", str(release)] + include_flags + [str(probe)], capture_output=True,
                           text=True)
        check(p.returncode != 0 and "debugTrustExtraRoot" in p.stderr,
              "an app calling debugTrustExtraRoot does not compile against the release module", p.stderr)
        p = subprocess.run(common + include_flags + [str(probe)], capture_output=True, text=True)
        check(p.returncode == 0, "the same app file compiles against the debug module", p.stderr)

        # 2. The client snippets of README.md and docs/SWIFT-CLIENT.md, as an app's main.swift (the key PEM is the
        # app's own constant).
        import re
        readme = "".join((ROOT / page).read_text() for page in ("README.md", "docs/SWIFT-CLIENT.md"))
        snippets = re.findall(r"<!-- client-snippet[^>]*-->\n```swift\n(.*?)\n```", readme, re.S)
        check(len(snippets) >= 2, "README.md and docs/SWIFT-CLIENT.md have their client snippets")
        for n, snippet in enumerate(snippets):
            main = work / f"snippet{n}" / "main.swift"
            main.parent.mkdir()
            body = snippet.replace("import PinSetClient\n", "", 1)
            main.write_text("import Foundation\nimport PinSetClient\n\nlet pinsetPublicKeyPEM = \"\"\n" + body + "\n")
            p = subprocess.run(common + include_flags + [str(main)], capture_output=True, text=True)
            check(p.returncode == 0 and "warning:" not in p.stderr,
                  f"client snippet {n + 1} compiles with no warning", p.stderr)

        # 3. DocC from the debug module's symbol graph.
        docc = shutil.which("docc") or str(Path(tc.swiftc).parent / "docc")
        # The modules PinSetClient re-exports (its docs link to their types) go into the same graph.
        graph = work / "debug-graph"
        graph.mkdir()
        cmd = [tc.extractor, "-module-name", "PinSetClient", "-target", tc.triple, "-output-dir", str(graph),
               "-minimum-access-level", "public",
               "-experimental-allowed-reexported-modules=PinSetCore,PinSetRules,TransparencyLog"]
        p = subprocess.run(cmd + include_flags, capture_output=True, text=True)
        check(p.returncode == 0, "the symbol graph of PinSetClient is extracted", p.stderr)
        out = work / "PinSetClient.doccarchive"
        p = subprocess.run([docc, "convert", str(ROOT / "Sources" / "PinSetClient" / "PinSetClient.docc"),
                            "--additional-symbol-graph-dir", str(graph), "--output-path", str(out),
                            "--fallback-display-name", "PinSetClient", "--fallback-bundle-identifier",
                            "pinset.PinSetClient", "--warnings-as-errors"], capture_output=True, text=True)
        check(p.returncode == 0, "the DocC catalog of PinSetClient builds with no warning", p.stdout + p.stderr)
    print("client-docs: all passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
