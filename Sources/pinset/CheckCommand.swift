import ArgumentParser
import Foundation
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore
import PinSetProbe
import PinSetRules

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `pinset check HOST`: does the published set accept what HOST serves (or the certificate about to be
/// deployed)? For CI pipelines: exit 0 matches, 1 would lock out, 3 unreachable, 2 any other failure.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Probe HOST from here and check the published set accepts every chain it serves.",
        discussion: """
            Fetches the published document (/pins/HOST) from --server, probes every address of HOST on port 443 \
            (or where a --connect-to mapping says) and compares. --cert FILE checks a certificate (or chain, PEM) \
            before it is deployed instead of probing. With --trust-key the document is verified as a client \
            does; without, it is only decoded. Exit status: 0 the set matches, 1 it would lock clients out, \
            3 the host is unreachable, 2 anything else (no published set, bad arguments).
            """)
    @Argument(help: "The host.") var host: String
    @Option(help: "Server or mirror base URL. Env PINSET_SERVER. Default http://127.0.0.1:8080.") var server: String?
    @Option(help: "HOST:PORT:ADDR:PORT (curl's --connect-to): probe ADDR:PORT instead. Repeatable.")
    var connectTo: [String] = []
    @Option(help: "A certificate (or PEM chain, leaf first) to check instead of probing the host.") var cert: String?
    @Option(help: "Seconds per address for the probe. Default 5.") var timeout: Double = 5
    @Option(help: "A trusted key to verify the document with (as for `pinset fetch`). Repeatable.")
    var trustKey: [String] = []

    static let matches: Int32 = 0
    static let wouldLockOut: Int32 = 1
    static let otherFailure: Int32 = 2
    static let unreachable: Int32 = 3

    func run() async throws {
        do {
            throw ExitCode(try await check())
        } catch let error as CLIError {
            FileHandle.standardError.write(Data("Error: \(error.description)\n".utf8))
            throw ExitCode(Self.otherFailure)
        }
    }

    private func check() async throws -> Int32 {
        let name: String
        do { name = try HostName.normalize(host) } catch { throw CLIError("invalid host \"\(host)\": \(error)") }
        let set = try await publishedSet(name)
        let now = Date()
        let probes: [AddressProbe]
        if let cert {
            guard let data = FileManager.default.contents(atPath: cert) else { throw CLIError("cannot read \(cert)") }
            let chain: [ParsedCertificate]
            do { chain = try CertificateParser.parse(Array(data)) } catch { throw CLIError("\(cert): \(error)") }
            probes = [AddressProbe(address: cert, served: ServedCertificate.chain(chain))]
        } else {
            var configuration = ProbeConfiguration()
            configuration.connectTo = try ProbeOptions.rules(connectTo)
            configuration.allowPrivate = true  // the operator's own machine: no SSRF to guard against
            configuration.timeout = timeout
            let prober = HostProber(configuration: configuration)
            probes = await withCheckedContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: prober.probe(name)) }
            }
        }
        let results = LockoutCheck.evaluate(set.pins, probes: probes, now: now)
        print("# \(name): published version \(set.version), \(set.pins.count) pins, enforce \(set.enforce)")
        for result in results {
            let verdict =
                result.error.map { "unreachable: \($0)" } ?? (result.matches == true ? "matches" : "WOULD LOCK OUT")
            print("\(result.address)  \(verdict)")
            for certificate in result.served {
                let pinned = set.pins.contains { certificate.matches($0) } ? "pinned" : "-"
                print(
                    "  \(certificate.spki)  \(certificate.position == 0 ? "leaf" : "chain")  \(pinned)  \(certificate.subject)"
                )
            }
        }
        if results.contains(where: { $0.matches == false }) { return Self.wouldLockOut }
        if results.contains(where: { $0.error != nil }) { return Self.unreachable }
        return Self.matches
    }

    /// The set published for `name` at `--server`: verified with `--trust-key` when given, else decoded.
    private func publishedSet(_ name: String) async throws -> PinSet {
        let base = Environment.server(server).trimmingSuffix("/")
        let path = "/pins/" + name.pathSegment
        let data = try await MirrorFetch.get(base: base, path: path)
        if !trustKey.isEmpty {
            let trust = try TrustOptions.parse(trustKey.flatMap { ["--trust-key", $0] })
            let verifier = DocumentVerifier(trustedKeys: try trust.keys())
            switch verifier.verify(data, host: name, now: Date(), lastAccepted: nil) {
            case .failure(let rejection): throw CLIError("refused: \(rejection)")
            case .success(let document): return document.pinSet
            }
        }
        do {
            let document = try SignedDocument.decode(json: data)
            guard let payload = Base64URL.decode(document.payload) else { throw CLIError("bad payload") }
            return try PinSet.decode(json: payload)
        } catch {
            throw CLIError("\(base)\(path) did not answer a pin set document: \(error)")
        }
    }
}
