#if DEBUG
    import Foundation
    import PinSetCore

    extension PinTrustManager {
        /// **DEBUG builds only** (the declaration does not exist in a release build): trusts `der`, a root CA
        /// certificate such as Charles's or Proxyman's, for every host. A chain that contains this root is
        /// accepted whatever the pins say, so a debugging proxy can read the app's traffic without switching
        /// pinning off; on Apple platforms the root is also added as an anchor for standard validation.
        ///
        /// - Warning: Every use is logged to standard error (the Xcode console), every connection it lets
        ///   through is logged again. It cannot ship: code that calls it does not compile in a release build.
        /// - Parameter der: the root certificate, DER.
        public func debugTrustExtraRoot(der: [UInt8]) {
            state.withLock { $0.debugRoots.append(der) }
            Self.debugLog("DEBUG OVERRIDE: an extra root is trusted for every host, whatever the pins say")
        }

        /// The extra roots of ``debugTrustExtraRoot(der:)``.
        var debugExtraRoots: [[UInt8]] { state.withLock { $0.debugRoots } }

        /// `.trusted` when the chain contains an extra debug root, logged; `nil` otherwise.
        func debugOverride(chain: [[UInt8]], host: String) -> TrustDecision? {
            let roots = state.withLock { $0.debugRoots }
            guard !roots.isEmpty, let root = chain.first(where: { roots.contains($0) }) else { return nil }
            let pin = (try? SPKIPin.sha256(ofCertificateDER: root)) ?? ""
            Self.debugLog("DEBUG OVERRIDE: \(host) accepted through the extra root \(pin), pins not checked")
            return .trusted(pin: Pin(sha256: pin, type: .spki, role: .current), notedHost: host)
        }

        static func debugLog(_ message: String) {
            FileHandle.standardError.write(Data("pinset ⚠️ \(message)\n".utf8))
        }
    }
#endif
