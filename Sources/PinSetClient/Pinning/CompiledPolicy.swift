import Foundation
import PinSetCore

/// A pin set prepared for evaluation: hashes decoded to words, times as plain numbers. A class, so that the
/// warm path retains one reference instead of copying every string and array of the set.
final class CompiledPolicy: Sendable {
    struct CompiledPin: Sendable {
        let digest: Digest32
        let isCertificate: Bool
        /// `timeIntervalSinceReferenceDate` of `expiresAt`, or +∞.
        let expiresAt: Double
    }

    let set: PinSet
    /// `nil` for a set the app installed from code rather than from a signed document.
    let document: VerifiedDocument?
    let pins: [CompiledPin]
    /// `expiresAt + skew` of the document, as `timeIntervalSinceReferenceDate`.
    let staleAfter: Double

    var acceptedVersion: AcceptedVersion { AcceptedVersion(version: set.version, issuedAt: set.issuedAt) }

    init(set: PinSet, document: VerifiedDocument?, skew: Double) {
        self.set = set
        self.document = document
        // Pins whose hash does not decode cannot match anything; PinSet.decode already refused them.
        pins = set.pins.compactMap { pin in
            guard let bytes = pin.hashBytes, let digest = Digest32(bytes: bytes) else { return nil }
            return CompiledPin(
                digest: digest, isCertificate: pin.type == .certificate,
                expiresAt: pin.expiresAt?.timeIntervalSinceReferenceDate ?? .infinity)
        }
        staleAfter = set.expiresAt.timeIntervalSinceReferenceDate + skew
    }

    /// The index of the first unexpired pin matching the certificate's digests.
    @inline(__always)
    func match(_ entry: CertificateHashCache.Digests, now: Double) -> Int? {
        for index in pins.indices {
            let pin = pins[index]
            guard now < pin.expiresAt else { continue }
            if pin.isCertificate {
                if pin.digest == entry.certificate { return index }
            } else if let spki = entry.spki, pin.digest == spki {
                return index
            }
        }
        return nil
    }

    func activePins(now: Double) -> [Pin] {
        zip(set.pins, pins).filter { now < $0.1.expiresAt }.map(\.0)
    }
}
