#!/usr/bin/env python3
"""Tests of scripts/apple_audit.py on the fixtures in Tests/AppleAudit/fixtures (not a SwiftPM target).

Each fixture is audited as its own module; the ones named "must fail" in their first line must make the
audit exit 1 with the expected findings, the others must pass. `uses_dependency_api.swift` is compiled with
PinSetNIO's flags, so it needs the debug build (`swift build --build-tests`), as `make check-apple` does.
Prints "N passed, M failed" last; exits 1 when any test fails.
"""

import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "Tests" / "AppleAudit" / "fixtures"
AUDIT = ROOT / "scripts" / "apple_audit.py"
sys.path.insert(0, str(ROOT / "scripts"))
import apple_audit  # noqa: E402

FLOORS = {"macOS": (13, 0, 0), "iOS": (16, 0, 0), "tvOS": (16, 0, 0), "watchOS": (9, 0, 0)}


def audit(*files, like_target=None):
    cmd = [sys.executable, str(AUDIT), "--quiet", "--files", *map(str, files)]
    if like_target:
        cmd += ["--like-target", like_target]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    return p.returncode, p.stdout, p.stderr


class FailingFixtures(unittest.TestCase):
    def assertFails(self, name, *expected, like_target=None):
        code, out, err = audit(FIXTURES / name, like_target=like_target)
        self.assertEqual(code, 1, f"{name} should fail the audit\n{out}{err}")
        for pattern in expected:
            self.assertRegex(out, pattern)
        return out

    def test_mutex(self):
        out = self.assertFails(
            "uses_mutex.swift",
            r"uses_mutex\.swift:5:\d+: Synchronization\.Mutex: introduced in macOS 15\.0, iOS 18\.0, tvOS 18\.0, "
            r"watchOS 11\.0",
            r"uses_mutex\.swift:5:\d+: Synchronization\.Mutex\.init\(_:\): introduced in .*iOS 18\.0",
            r"uses_mutex\.swift:8:\d+: Synchronization\.Mutex\.withLock\(_:\): introduced in .*iOS 18\.0",
        )
        self.assertEqual(len([line for line in out.splitlines() if "uses_mutex.swift:" in line]), 3, out)

    def test_ios17_foundation(self):
        self.assertFails(
            "ios17_foundation.swift",
            r"ios17_foundation\.swift:5:\d+: FoundationEssentials\.URL\.init\(string:encodingInvalidCharacters:\): "
            r"introduced in macOS 14\.0, iOS 17\.0, tvOS 17\.0, watchOS 10\.0",
        )

    def test_unguarded_foundation_networking(self):
        self.assertFails("unguarded_networking.swift",
                         r"unguarded_networking\.swift:3:1: `import FoundationNetworking` is Linux-only")

    def test_glibc_without_apple_branch(self):
        self.assertFails("glibc_without_apple_branch.swift",
                         r"glibc_without_apple_branch\.swift:3:5: `import Glibc` has no Apple branch")

    def test_dependency_api(self):
        self.assertFails(
            "uses_dependency_api.swift",
            r"uses_dependency_api\.swift:8:\d+: X509\.Certificate\.SerialNumber\.init\(integerLiteral:\): "
            r"introduced in macOS 13\.3, iOS 16\.4",
            r"uses_dependency_api\.swift:12:\d+: NIOCore\.ByteBuffer\.getUTF8ValidatedString\(at:length:\): "
            r"introduced in macOS 15\.0, iOS 18\.0",
            like_target="PinSetNIO",
        )


class PassingFixtures(unittest.TestCase):
    def test_clean(self):
        code, out, err = audit(FIXTURES / "clean.swift")
        self.assertEqual(code, 0, out + err)

    def test_guarded(self):
        code, out, err = audit(FIXTURES / "guarded.swift")
        self.assertEqual(code, 0, out + err)

    def test_guarded_without_its_guards_fails_at_every_site(self):
        """guarded.swift passes because of its guards: take them away and each use is flagged."""
        text = (FIXTURES / "guarded.swift").read_text()
        text = re.sub(r"^@available\(.*\)\n", "", text, flags=re.M)
        text = re.sub(r"#available\([^)]*\)", "true", text)
        text = re.sub(r"#unavailable\([^)]*\)", "false", text)
        text = text.replace("#if os(Linux)", "#if true")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "unguarded.swift"
            path.write_text(text)
            code, out, err = audit(path)
        self.assertEqual(code, 1, out + err)
        strict = {line.split(":")[1] for line in out.splitlines() if "encodingInvalidCharacters" in line}
        self.assertEqual(len(strict), 5, out)  # @available func, @available extension, if, guard, #unavailable
        self.assertIn("Synchronization.Mutex", out)


class Conditions(unittest.TestCase):
    def check(self, condition, platform, expected, known=frozenset()):
        self.assertIs(apple_audit.evaluate_condition(condition, platform, set(known)), expected, condition)

    def test_evaluation(self):
        self.check("os(Linux)", "iOS", False)
        self.check("os(macOS)", "macOS", True)
        self.check("os(macOS)", "iOS", False)
        self.check("canImport(FoundationNetworking)", "macOS", False)
        self.check("canImport(Darwin)", "watchOS", True)
        self.check("!canImport(Darwin)", "tvOS", False)
        self.check("canImport(Glibc) || os(Linux)", "iOS", False)
        self.check("canImport(Glibc) || DEBUG", "iOS", None)
        self.check("canImport(Darwin) && DEBUG", "iOS", None)
        self.check("canImport(Darwin) && !os(Linux)", "iOS", True)
        self.check("canImport(UIKit)", "macOS", False)
        self.check("canImport(NIOCore)", "iOS", True, {"NIOCore"})
        self.check("canImport(SomethingElse)", "iOS", None)

    def test_floors_from_package_swift(self):
        floors = apple_audit.parse_floors(ROOT / "Package.swift")
        for platform in ("macOS", "iOS"):
            self.assertIn(platform, floors)


def main() -> int:
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    failed = len(result.failures) + len(result.errors)
    passed = result.testsRun - failed - len(result.skipped)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
