import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `pinset serve` as a process: the `make run` defaults, refusing an unsafe key, and SIGTERM.
@Suite(.blocking) struct ServeCommandTests {
    static let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../.build/debug/pinset").standardized.path

    /// A started `pinset serve`; stdout lines are collected as they arrive.
    final class ServeProcess: @unchecked Sendable {
        let process: ChildProcess

        init(_ arguments: [String], in directory: URL) throws {
            process = try ProcessRunner.start(
                ServeCommandTests.binary, ["serve"] + arguments, directory: directory, stdout: .collect,
                stderr: .collect)
        }

        var stdout: String { process.stdoutText }
        var stderr: String { process.stderrText }

        /// Waits until stdout has `lines` lines (or the process exits), at most `seconds`.
        func waitForLines(_ lines: Int, seconds: Double = 20) -> [String] {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                let current = stdout.split(separator: "\n").map(String.init)
                if current.count >= lines || !process.isRunning { return current }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return stdout.split(separator: "\n").map(String.init)
        }

        func waitForExit(seconds: Double = 15) -> Int32? {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            return process.isRunning ? nil : process.terminationStatus
        }
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pinset-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The exact `pinset serve` command line of `make run` (read with `make -n`), run against the debug binary:
    /// an option renamed in the CLI but not in the Makefile breaks `make run` on every fresh machine.
    @Test func makeRunCommandLineStartsTheServer() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
            .standardized
        let recipe = try ProcessRunner.run("make", ["-n", "-C", root.path, "run", "DATA=\(dir.path)/data", "PORT=0"])
            .text
        let joined = recipe.replacingOccurrences(of: "\\\n", with: " ")
        let line = try #require(joined.split(separator: "\n").first { $0.contains("/pinset serve ") }, "\(recipe)")
        let arguments = line.components(separatedBy: "/pinset serve ")[1].split(whereSeparator: \.isWhitespace)
            .map(String.init)
        let server = try ServeProcess(arguments, in: dir)
        let lines = server.waitForLines(5)
        #expect(
            lines.first?.hasPrefix("pinset is serving on http://127.0.0.1:") == true,
            "\(arguments): \(lines) \(server.stderr)")
        #expect(lines.last?.hasPrefix("pst_") == true)
        kill(server.process.processIdentifier, SIGTERM)
        #expect(server.waitForExit() == 0)
    }

    @Test func devStartCreatesKeyPrintsTokenOnceAndStopsCleanlyOnSIGTERM() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = try ServeProcess(["--dev", "--port", "0"], in: dir)
        let lines = first.waitForLines(5)
        #expect(lines.first?.hasPrefix("pinset is serving on http://127.0.0.1:") == true, "\(lines) \(first.stderr)")
        let token = try #require(lines.last)
        #expect(token.hasPrefix("pst_") && token.count == 47)
        let attributes = try FileManager.default.attributesOfItem(
            atPath: dir.appendingPathComponent("data/signing-key.pem").path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        kill(first.process.processIdentifier, SIGTERM)
        #expect(first.waitForExit() == 0)
        #expect(first.stderr.contains("stopped"))
        #expect(!first.stderr.contains(token), "the token is never logged")

        // Second start: same key, no new token printed.
        let second = try ServeProcess(["--dev", "--port", "0"], in: dir)
        let again = second.waitForLines(3)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(again.count == 3 && !second.stdout.contains("pst_"), "\(second.stdout)")
        kill(second.process.processIdentifier, SIGINT)
        #expect(second.waitForExit() == 0)
    }

    @Test func refusesAKeyReadableByOthers() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = dir.appendingPathComponent("key.pem").path
        _ = try ProcessRunner.run("/usr/bin/openssl", ["genpkey", "-algorithm", "ed25519", "-out", key])
        chmod(key, 0o644)
        let server = try ServeProcess(
            ["--key", key, "--db", dir.appendingPathComponent("db.sqlite").path, "--port", "0"], in: dir)
        let status = server.waitForExit()
        #expect(status != nil && status != 0)
        let message = server.stderr + server.stdout
        #expect(message.contains("chmod 600"), "\(message)")
        #expect(!message.contains("PRIVATE KEY"), "no key material in the message")
    }

    /// Issue 26 item 5: `--dev` with a mistyped `--key` must not mint a key and re-sign a database that another
    /// key has signed; it refuses with one line naming the files and the kid, and creates nothing.
    @Test func devRefusesToMintAKeyForADatabaseThatHasDocuments() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("pinset.sqlite").path
        let key = dir.appendingPathComponent("signing-key.pem").path
        let keygen = try CLIRunner.pinset(["keygen", "--out", key])
        let kidLine = try #require(keygen.stdout.split(separator: "\n").first { $0.hasPrefix("kid: ") })
        let kid = kidLine.dropFirst("kid: ".count)
        let seeded = try CLIRunner.pinset(["seed", "--db", db, "--key", key, "--hosts", "3"])
        #expect(seeded.status == 0, "\(seeded.stderr)")

        let typo = dir.appendingPathComponent("signing-kye.pem").path
        let refused = try CLIRunner.pinset(["serve", "--dev", "--db", db, "--key", typo, "--port", "0"])
        #expect(refused.status == 1)
        #expect(refused.lastErrorLine.contains("signing-kye.pem does not exist"), "\(refused.stderr)")
        #expect(refused.lastErrorLine.contains(String(kid)), "names the kid that signed: \(refused.stderr)")
        #expect(refused.lastErrorLine.contains("--key"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: typo), "no key was created")
    }

    /// Issue 26 item 8: a refresh interval that is not under half the lifetime is refused with one line naming both
    /// values and the flags (and environment variables) that set them.
    @Test func refreshNotUnderHalfTheLifetimeNamesBothValuesAndFlags() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let refused = try CLIRunner.pinset([
            "serve", "--dev", "--db", dir.appendingPathComponent("db.sqlite").path, "--key",
            dir.appendingPathComponent("key.pem").path, "--port", "0", "--refresh", "8d", "--lifetime", "14d",
        ])
        #expect(refused.status == 1)
        let line = refused.lastErrorLine
        #expect(line.contains("refresh 8d") && line.contains("lifetime 14d"), "\(line)")
        #expect(line.contains("--refresh") && line.contains("--lifetime") && line.contains("PINSET_REFRESH"), "\(line)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("db.sqlite").path))
    }

    /// `--probe-unreachable-ttl` takes a duration up to 1h, or 0 (remember nothing); anything else is refused
    /// with the flag's name.
    @Test func probeUnreachableTTLOutOfRangeIsRefused() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for value in ["2h", "soon"] {
            let refused = try CLIRunner.pinset([
                "serve", "--dev", "--db", dir.appendingPathComponent("db.sqlite").path, "--key",
                dir.appendingPathComponent("key.pem").path, "--port", "0", "--probe-unreachable-ttl", value,
            ])
            #expect(refused.status == 1)
            #expect(refused.lastErrorLine.contains("probe-unreachable-ttl"), "\(refused.lastErrorLine)")
        }
    }
}
