#if canImport(Security)
    import Foundation
    import Security

    /// An Alamofire-style server trust evaluator over `SecTrust`: standard evaluation first, then the pins of a
    /// ``PinTrustManager``. Shaped like Alamofire's `ServerTrustEvaluating` (`evaluate(_:forHost:) throws`), so an
    /// app can wrap it in a one-line conformance.
    ///
    /// - Warning: Apple-only and thin on purpose: it extracts the DER chain and calls the same evaluator as every
    ///   other adapter. CI runs on Linux and cannot compile this file; it has never been built there.
    public struct PinnedServerTrustEvaluator: Sendable {
        /// The manager whose pins decide.
        public let trustManager: PinTrustManager

        /// The error thrown when a chain is refused.
        public struct Failure: Error, Sendable {
            /// The decision, or `nil` when standard validation failed first.
            public let decision: TrustDecision?
            /// Why.
            public let detail: String
        }

        /// Creates an evaluator.
        public init(trustManager: PinTrustManager) { self.trustManager = trustManager }

        /// Runs `SecTrustEvaluateWithError`, then ``PinTrustManager/evaluate(chain:host:now:)`` on the validated chain.
        /// - Throws: ``Failure`` when either refuses.
        @discardableResult
        public func evaluate(_ trust: SecTrust, forHost host: String, now: Date = Date()) throws -> TrustDecision {
            SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host as CFString))
            var error: CFError?
            guard SecTrustEvaluateWithError(trust, &error) else {
                throw Failure(
                    decision: nil, detail: "standard validation failed: \(error.map { "\($0)" } ?? "unknown")")
            }
            let certificates = (SecTrustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
            let chain = certificates.map { [UInt8](SecCertificateCopyData($0) as Data) }
            let decision = trustManager.evaluate(chain: chain, host: host, now: now)
            guard decision.allowsConnection else {
                throw Failure(decision: decision, detail: "pin validation failed for \(host)")
            }
            return decision
        }
    }
#endif
