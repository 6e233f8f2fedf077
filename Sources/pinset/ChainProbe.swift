import Foundation
import OpenSSLCrypto

/// Makes a TLS handshake and records the certificate chain the server presents, WITHOUT validating it:
/// a diagnostic for `pinset pin --connect`, with the same OpenSSL probe as the server's pre-flight check.
enum ChainProbe {
    /// The DER certificates the server at `endpoint` (`HOST:PORT`, `[v6]:PORT`) presents, leaf first.
    static func presentedChain(endpoint: String, serverName: String?) async throws -> [[UInt8]] {
        guard let colon = endpoint.lastIndex(of: ":"), let port = Int(endpoint[endpoint.index(after: colon)...]),
            (1...65_535).contains(port)
        else { throw CLIError("--connect \"\(endpoint)\" is not HOST:PORT") }
        var host = String(endpoint[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        let sni = serverName ?? (isAddress ? nil : host)
        let name = host
        // Blocking resolution and handshake: off Swift's cooperative pool, on a thread of their own.
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    let address = try AddressResolver.resolve(name, port: port, limit: 1)[0]
                    let chain = try TLSProbe.presentedChain(to: address, serverName: sni, timeout: 10)
                    continuation.resume(returning: chain.map(\.der))
                } catch {
                    continuation.resume(throwing: CLIError("cannot probe \(endpoint): \(error)"))
                }
            }
        }
    }

    /// Whether a DER certificate's issuer equals its subject.
    static func isSelfIssued(_ der: [UInt8]) -> Bool { CertificateParser.isSelfIssued(der: der) }
}
