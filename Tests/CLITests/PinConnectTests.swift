import Foundation
import TestSupport
import Testing

/// `pinset pin --connect` against a real `openssl s_server` presenting a three-certificate chain.
@Suite(.blocking) struct PinConnectTests {
    @Test func printsThePinOfEveryPresentedCertificateMarkedByPosition() throws {
        let host = try TLSTestHost(name: "leaf.example", days: 2)
        try host.shell(
            """
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout root.key -out root.pem -days 2 -subj /CN=Root 2>/dev/null && \
            openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-384 -nodes -keyout inter.key -out inter.csr -subj /CN=Intermediate 2>/dev/null && \
            openssl x509 -req -in inter.csr -CA root.pem -CAkey root.key -CAcreateserial -out inter.pem -days 2 -extfile ca.ext 2>/dev/null && \
            openssl req -newkey rsa:2048 -nodes -keyout leaf.key -out leaf.csr -subj /CN=leaf.example 2>/dev/null && \
            openssl x509 -req -in leaf.csr -CA inter.pem -CAkey inter.key -CAcreateserial -out leaf.pem -days 2 -extfile leaf.ext 2>/dev/null && \
            cat inter.pem root.pem > chain.pem
            """)
        try host.serve(certificate: "leaf.pem", key: "leaf.key", chain: "chain.pem")
        func pin(_ file: String) throws -> String {
            try CLIRunner.pinset(["pin", host.path(file)]).stdout.components(separatedBy: "  ")[0]
        }
        let result = try CLIRunner.pinset([
            "pin", "--connect", "\(host.ip):\(host.port)", "--servername", "leaf.example",
        ])
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
