import Foundation
import PinSetCore

/// Checks a signed pin set document exactly as PROTOCOL §5 lists it, steps 1–6 in order, and says precisely why
/// a document is refused.
///
/// Pure: no I/O, no state. ``PinTrustManager`` uses it to accept documents; the `pinset verify` CLI uses it
/// directly.
public struct DocumentVerifier: Sendable {
    /// The keys documents may be signed with, by `kid`.
    public let trustedKeys: [String: TrustedKey]
    /// The clock tolerance of step 5, in seconds. Default 300 (five minutes).
    public var skew: TimeInterval
    /// The largest body accepted (step 1). Default ``SignedDocument/maxBytes`` (65,535 bytes).
    public var maxBytes: Int
    /// The decoded header of every exact protected member the server writes for a trusted key
    /// (base64url of ``SignedDocument/protectedHeader(kid:)``): such a header needs no base64 or JSON decoding.
    private let knownHeaders: [String: JWSHeader]
    /// The trust state of an app configured with root keys (PROTOCOL §6): its signing keys count as trusted too.
    /// `nil` (the default) for an app that ships its signing keys only.
    public package(set) var trustStore: TrustStore? = nil

    /// Creates a verifier.
    /// - Parameters:
    ///   - trustedKeys: the Ed25519 keys shipped with the app. An empty list refuses every document.
    ///   - skew: clock tolerance for `issuedAt`/`expiresAt`, default 300 seconds.
    ///   - maxBytes: body size limit, default 65,535 bytes as the protocol fixes it.
    public init(trustedKeys: [TrustedKey], skew: TimeInterval = 300, maxBytes: Int = SignedDocument.maxBytes) {
        self.trustedKeys = Dictionary(trustedKeys.map { ($0.kid, $0) }, uniquingKeysWith: { first, _ in first })
        self.knownHeaders = Dictionary(
            trustedKeys.map {
                (
                    Base64URL.encode(SignedDocument.protectedHeader(kid: $0.kid)),
                    JWSHeader(alg: SignedDocument.algorithm, kid: $0.kid, typ: SignedDocument.type)
                )
            }, uniquingKeysWith: { first, _ in first })
        self.skew = skew
        self.maxBytes = maxBytes
    }

    /// Verifies `bytes` as the document for `host` at `now` (PROTOCOL §5 steps 1–6, in that order).
    /// - Parameters:
    ///   - bytes: the response body exactly as received.
    ///   - host: the host the document was fetched for (normalised here).
    ///   - now: the current time, for step 5.
    ///   - lastAccepted: the highest version already accepted for `host` (step 6); `nil` accepts any version.
    ///     Use ``AcceptedVersion/minimum(_:)`` for a plain version floor.
    /// - Returns: the verified document, or the first rule it broke.
    public func verify(
        _ bytes: some Collection<UInt8>, host: String, now: Date, lastAccepted: AcceptedVersion?
    ) -> Result<VerifiedDocument, DocumentRejection> {
        verify(bytes, host: host, now: now as Date?, lastAccepted: lastAccepted)
    }

    /// Like ``verify(_:host:now:lastAccepted:)`` but skips step 5 (freshness): for documents the app already
    /// accepted once (persisted) or shipped itself (bundled). An expired set loaded this way is stale, and
    /// ``PinningOptions/staleSetPolicy`` decides whether it is still enforced.
    public func verifyIgnoringTime(
        _ bytes: some Collection<UInt8>, host: String, lastAccepted: AcceptedVersion?
    ) -> Result<VerifiedDocument, DocumentRejection> {
        verify(bytes, host: host, now: nil, lastAccepted: lastAccepted)
    }

    private func verify(
        _ bytes: some Collection<UInt8>, host rawHost: String, now: Date?, lastAccepted: AcceptedVersion?
    ) -> Result<VerifiedDocument, DocumentRejection> {
        // 1. size, JSON, the three JWS members.
        guard bytes.count <= maxBytes else {
            return .failure(.init(.tooLarge, "the document is \(bytes.count) bytes; at most \(maxBytes) are accepted"))
        }
        let raw = Array(bytes)
        guard let decoded = try? SignedDocument.decodeNotingForm(json: raw) else {
            return .failure(
                .init(
                    .malformedJSON, "the body is not a JSON object with string members protected, payload and signature"
                ))
        }
        let document = decoded.document
        // The compact form the server writes holds each member once; any other body is scanned (B8: scanning
        // every body and payload cost a verification about 11 µs).
        if !decoded.compact, let name = JSONRepeatedMembers.first(in: raw) {
            return .failure(.init(.malformedJSON, "the document repeats the member \"\(name.prefix(40))\""))
        }
        // The usual header is one of the few exact strings the server writes; any other goes through JSONDecoder
        // (once checked for a repeated member: parsers disagree on which one wins).
        let delegation = trustStore?.current
        guard
            let header = knownHeaders[document.protected] ?? delegation?.knownHeaders[document.protected]
                ?? Base64URL.decode(document.protected).flatMap({ bytes -> JWSHeader? in
                    guard JSONRepeatedMembers.first(in: bytes) == nil else { return nil }
                    return try? JSONDecoder().decode(JWSHeader.self, from: Data(bytes))
                })
        else {
            return .failure(
                .init(
                    .malformedJSON,
                    "the protected header is not base64url of a JSON object with an alg member, each member once"))
        }
        guard let payloadBytes = Base64URL.decode(document.payload) else {
            return .failure(.init(.malformedJSON, "the payload is not base64url"))
        }
        // The payload the server writes is read byte for byte as it encodes it, each member once; any other
        // payload is scanned for a repeated member.
        let canonicalSet = PinSet.canonical(json: payloadBytes)
        if canonicalSet == nil, let name = JSONRepeatedMembers.first(in: payloadBytes) {
            return .failure(.init(.malformedJSON, "the payload repeats the member \"\(name.prefix(40))\""))
        }

        // 2. alg, typ, kid.
        guard SignedDocument.acceptedAlgorithms.contains(header.alg) else {
            return .failure(
                .init(
                    .unsupportedAlgorithm,
                    "alg is \"\(header.alg.prefix(40))\"; only \"EdDSA\" (or \"Ed25519\", RFC 9864) is accepted"))
        }
        guard header.typ == SignedDocument.type else {
            return .failure(
                .init(
                    .wrongType,
                    "typ is \(header.typ.map { "\"\($0.prefix(40))\"" } ?? "missing"); it must be \"pinset+jws\""))
        }
        guard let kid = header.kid, let key = trustedKeys[kid] ?? delegation?.signingKeys[kid] else {
            return .failure(
                .init(
                    .unknownKey, "kid \(header.kid.map { "\"\($0.prefix(60))\"" } ?? "(missing)") names no trusted key")
            )
        }
        if trustedKeys[kid] == nil, let now, let delegation, let rejection = delegation.freezeRejection(now, skew) {
            return .failure(rejection)
        }

        // 3. signature over protected + "." + payload, as sent.
        guard let signature = Base64URL.decode(document.signature), signature.count == 64,
            key.isValidSignature(signature, for: document.signingInput)
        else {
            return .failure(.init(.badSignature, "the Ed25519 signature does not verify with key \(kid)"))
        }
        let set: PinSet
        do {
            if let canonicalSet {
                try canonicalSet.checkStructure()
                set = canonicalSet
            } else {
                set = try PinSet.decode(json: payloadBytes)
            }
        } catch {
            return .failure(.init(.malformedJSON, "the signed payload is not a valid pin set: \(error)"))
        }

        // 4. host.
        let host = (try? HostName.normalize(rawHost)) ?? rawHost
        guard set.host == host else {
            return .failure(.init(.hostMismatch, "the document is for \"\(set.host)\", not \"\(host)\""))
        }

        // 5. issuedAt - skew <= now < expiresAt + skew.
        if let now {
            guard set.issuedAt.addingTimeInterval(-skew) <= now else {
                return .failure(
                    .init(
                        .notYetValid,
                        "issuedAt \(RFC3339.format(set.issuedAt)) is in the future (now \(RFC3339.format(now)), skew \(Int(skew))s)"
                    ))
            }
            guard now < set.expiresAt.addingTimeInterval(skew) else {
                return .failure(
                    .init(
                        .expired,
                        "the document expired at \(RFC3339.format(set.expiresAt)) (now \(RFC3339.format(now)), skew \(Int(skew))s)"
                    ))
            }
        }

        // 6. no rollback.
        if let lastAccepted {
            if set.version < lastAccepted.version {
                return .failure(
                    .init(
                        .rollback,
                        "version \(set.version) is older than version \(lastAccepted.version) already accepted"))
            }
            if set.version == lastAccepted.version, set.issuedAt < lastAccepted.issuedAt {
                return .failure(
                    .init(
                        .rollback,
                        "version \(set.version) issued at \(RFC3339.format(set.issuedAt)) is older than the one issued at \(RFC3339.format(lastAccepted.issuedAt)) already accepted"
                    ))
            }
        }
        return .success(VerifiedDocument(pinSet: set, raw: raw, kid: kid))
    }
}
