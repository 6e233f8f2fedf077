#if canImport(Security)
    import Foundation
    import Security

    /// A `URLSessionDelegate` that pins server trust challenges with a ``PinTrustManager``.
    ///
    /// The evaluation (`SecTrustEvaluateWithError`, which may block on revocation or AIA fetches) runs on
    /// ``PinnedServerTrustEvaluator/evaluationQueue``, never on a thread of Swift's cooperative pool: the delegate
    /// method suspends while it runs.
    ///
    /// - Warning: Apple-only and minimal: it forwards to ``PinnedServerTrustEvaluator``. CI runs on Linux (where
    ///   URLSession never delivers trust challenges and there is no `Security` framework) and cannot compile this
    ///   file; it was reviewed against Apple's documentation, not built. One Xcode build is still needed.
    public final class PinningURLSessionDelegate: NSObject, URLSessionDelegate, Sendable {
        /// The evaluator that decides.
        public let evaluator: PinnedServerTrustEvaluator

        /// Creates a delegate for `trustManager`.
        public init(trustManager: PinTrustManager) {
            evaluator = PinnedServerTrustEvaluator(trustManager: trustManager)
        }

        /// Answers server trust challenges: `.useCredential` when the evaluator accepts, else
        /// `.cancelAuthenticationChallenge`. Other challenges get `.performDefaultHandling`.
        public func urlSession(
            _ session: URLSession, didReceive challenge: URLAuthenticationChallenge
        ) async -> (URLSession.AuthChallengeDisposition, URLCredential?) {
            guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
                let trust = challenge.protectionSpace.serverTrust
            else { return (.performDefaultHandling, nil) }
            do {
                try await evaluator.evaluateOffCooperativePool(trust, forHost: challenge.protectionSpace.host)
                return (.useCredential, URLCredential(trust: trust))
            } catch {
                return (.cancelAuthenticationChallenge, nil)
            }
        }
    }
#endif
