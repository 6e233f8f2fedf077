import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `pinset pin --connect` against a real `openssl s_server` presenting a three-certificate chain.
@Suite struct PinConnectTests {
    @Test func printsThePinOfEveryPresentedCertificateMarkedByPosition() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try CLIRunner.shell(
            """
            printf 'basicConstraints=critical,CA:TRUE\\nkeyUsage=critical,keyCertSign,cRLSign\\n' > ca.ext && \
            printf 'subjectAltName=DNS:leaf.example\\n' > leaf.ext && \
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout root.key -out root.pem -days 2 -subj /CN=Root 2>/dev/null && \
            openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-384 -nodes -keyout inter.key -out inter.csr -subj /CN=Intermediate 2>/dev/null && \
            openssl x509 -req -in inter.csr -CA root.pem -CAkey root.key -CAcreateserial -out inter.pem -days 2 -extfile ca.ext 2>/dev/null && \
            openssl req -newkey rsa:2048 -nodes -keyout leaf.key -out leaf.csr -subj /CN=leaf.example 2>/dev/null && \
            openssl x509 -req -in leaf.csr -CA inter.pem -CAkey inter.key -CAcreateserial -out leaf.pem -days 2 -extfile leaf.ext 2>/dev/null && \
            cat inter.pem root.pem > chain.pem
            """, in: dir)
        func pin(_ file: String) throws -> String {
            try CLIRunner.pinset(["pin", dir.appendingPathComponent(file).path]).stdout.components(separatedBy: "  ")[0]
        }
        let port = Int.random(in: 20_000...60_000)
        let server = try ProcessRunner.start(
            "/usr/bin/openssl",
            [
                "s_server", "-cert", "leaf.pem", "-key", "leaf.key", "-cert_chain", "chain.pem", "-accept", "\(port)",
                "-www", "-quiet",
            ], directory: dir)
        defer {
            // openssl s_server does not always stop on SIGTERM: kill it outright.
            server.kill()
            server.waitUntilExit()
        }
        var result = try CLIRunner.pinset(["pin", "--connect", "127.0.0.1:\(port)", "--servername", "leaf.example"])
        for _ in 0..<30 where result.status != 0 {
            Thread.sleep(forTimeInterval: 0.2)
            result = try CLIRunner.pinset(["pin", "--connect", "127.0.0.1:\(port)", "--servername", "leaf.example"])
        }
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("NOT validated") == true)
        #expect(
            Array(lines.dropFirst()) == [
                "\(try pin("leaf.pem"))  leaf  CN=leaf.example",
                "\(try pin("inter.pem"))  intermediate  CN=Intermediate",
                "\(try pin("root.pem"))  root  CN=Root",
            ])
    }

    @Test func refusedConnectionIsAClearError() throws {
        let result = try CLIRunner.pinset(["pin", "--connect", "127.0.0.1:1"])
        #expect(result.status == 1)
        #expect(result.lastErrorLine.contains("cannot connect to 127.0.0.1:1"))
        let bad = try CLIRunner.pinset(["pin", "--connect", "nohostport"])
        #expect(bad.status != 0)
    }
}
