#if canImport(Security)
    import Dispatch
    import Foundation
    import Security

    /// An Alamofire-style server trust evaluator over `SecTrust`: standard evaluation first, then the pins of a
    /// ``PinTrustManager``. Shaped like Alamofire's `ServerTrustEvaluating` (`evaluate(_:forHost:) throws`), so an
    /// app can wrap it in a one-line conformance.
    ///
    /// `SecTrustEvaluateWithError` may block on the network (revocation checks, fetching missing intermediates
    /// through AIA), so Apple says not to call it on the main thread, and it must not hold one of Swift's
    /// cooperative threads either. ``evaluate(_:forHost:now:)`` blocks its caller: call it from a dispatch queue,
    /// as Alamofire does. From async code call ``evaluateOffCooperativePool(_:forHost:now:)``, which runs the
    /// evaluation on ``evaluationQueue`` and suspends meanwhile.
    ///
    /// - Warning: Apple-only and thin on purpose: it extracts the DER chain and calls the same evaluator as every
    ///   other adapter. CI runs on Linux and cannot compile this file (no `Security` framework there); it was
    ///   reviewed against Apple's documentation, not built. One Xcode build is still needed.
    public struct PinnedServerTrustEvaluator: Sendable {
        /// The manager whose pins decide.
        public let trustManager: PinTrustManager

        /// Where ``evaluateOffCooperativePool(_:forHost:now:)`` runs `SecTrustEvaluateWithError`: a concurrent
        /// dispatch queue, never a thread of Swift's cooperative pool.
        public static let evaluationQueue = DispatchQueue(
            label: "pinset.server-trust-evaluation", qos: .userInitiated, attributes: .concurrent)

        /// The error thrown when a chain is refused.
        public struct Failure: Error, Sendable {
            /// The decision, or `nil` when standard validation failed first.
            public let decision: TrustDecision?
            /// Why.
            public let detail: String

            /// The same refusal in the platform-neutral form (``PinRefusal``) for `host`.
            public func refusal(host: String) -> PinRefusal {
                PinRefusal(host: host, decision: decision, detail: detail)
            }
        }

        /// Creates an evaluator.
        public init(trustManager: PinTrustManager) { self.trustManager = trustManager }

        /// Runs `SecTrustEvaluateWithError`, then ``PinTrustManager/evaluate(chain:host:now:)`` on the validated
        /// chain. Blocks the calling thread while `SecTrustEvaluateWithError` runs (it may wait on the network):
        /// call it from a dispatch queue, never the main thread or an async context.
        /// - Throws: ``Failure`` when either refuses.
        @discardableResult
        public func evaluate(_ trust: SecTrust, forHost host: String, now: Date = Date()) throws -> TrustDecision {
            // Every Security call's result is checked: a policy or anchor that silently failed to apply would
            // leave the evaluation to whatever the trust object held before.
            let policies = SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host as CFString))
            guard policies == errSecSuccess else {
                throw Failure(decision: nil, detail: "SecTrustSetPolicies failed (OSStatus \(policies))")
            }
            #if DEBUG
                try applyDebugAnchors(trust)
            #endif
            var error: CFError?
            guard SecTrustEvaluateWithError(trust, &error) else {
                throw Failure(
                    decision: nil, detail: "standard validation failed: \(error.map { "\($0)" } ?? "unknown")")
            }
            // SecTrustCopyCertificateChain is iOS 15 / macOS 12: within the floors.
            guard let certificates = SecTrustCopyCertificateChain(trust) as? [SecCertificate], !certificates.isEmpty
            else {
                throw Failure(decision: nil, detail: "the evaluated trust has no certificate chain")
            }
            let chain = certificates.map { [UInt8](SecCertificateCopyData($0) as Data) }
            let decision = trustManager.evaluate(chain: chain, host: host, now: now)
            guard decision.allowsConnection else {
                throw Failure(decision: decision, detail: "pin validation failed for \(host)")
            }
            return decision
        }

        #if DEBUG
            /// DEBUG builds only: adds the manager's extra debug roots (``PinTrustManager/debugTrustExtraRoot(der:)``)
            /// as anchors beside the system's, so a proxy's CA validates without a profile on the device.
            private func applyDebugAnchors(_ trust: SecTrust) throws {
                let roots = trustManager.debugExtraRoots
                guard !roots.isEmpty else { return }
                let certificates = roots.compactMap { SecCertificateCreateWithData(nil, Data($0) as CFData) }
                guard certificates.count == roots.count else {
                    throw Failure(decision: nil, detail: "a debug root is not a DER certificate")
                }
                let anchors = SecTrustSetAnchorCertificates(trust, certificates as CFArray)
                guard anchors == errSecSuccess else {
                    throw Failure(decision: nil, detail: "SecTrustSetAnchorCertificates failed (OSStatus \(anchors))")
                }
                let only = SecTrustSetAnchorCertificatesOnly(trust, false)
                guard only == errSecSuccess else {
                    throw Failure(
                        decision: nil, detail: "SecTrustSetAnchorCertificatesOnly failed (OSStatus \(only))")
                }
            }
        #endif

        /// ``evaluate(_:forHost:now:)`` on ``evaluationQueue``: the caller's task suspends, and no thread of
        /// Swift's cooperative pool waits on the network.
        /// - Throws: ``Failure`` when either standard validation or the pins refuse.
        @discardableResult
        public func evaluateOffCooperativePool(_ trust: SecTrust, forHost host: String, now: Date = Date())
            async throws -> TrustDecision
        {
            // SecTrust is thread-safe for evaluation but not marked Sendable; it is only touched on the queue.
            nonisolated(unsafe) let trust = trust
            return try await withCheckedThrowingContinuation { continuation in
                Self.evaluationQueue.async {
                    continuation.resume(with: Result { try evaluate(trust, forHost: host, now: now) })
                }
            }
        }
    }
#endif
