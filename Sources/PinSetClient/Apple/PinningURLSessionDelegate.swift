#if canImport(Security)
    import Foundation
    import Security

    /// A `URLSessionDelegate` that pins server trust challenges with a ``PinTrustManager``.
    ///
    /// Use it as a session's delegate, or from a delegate of your own through ``handle(_:task:completionHandler:)``.
    /// For `URLSession.shared` with a per-task delegate, and for ``PinningClient/failure(for:)``, see
    /// ``PinningTaskDelegate``. The evaluation (`SecTrustEvaluateWithError`, which may block on
    /// revocation or AIA fetches) runs on ``PinnedServerTrustEvaluator/evaluationQueue``, never on a thread of
    /// Swift's cooperative pool.
    ///
    /// - Warning: Apple-only and minimal: it forwards to ``PinnedServerTrustEvaluator``. CI runs on Linux (where
    ///   URLSession never delivers trust challenges and there is no `Security` framework) and cannot compile this
    ///   file; it was reviewed against Apple's documentation, not built. One Xcode build is still needed.
    public final class PinningURLSessionDelegate: NSObject, URLSessionDelegate, Sendable {
        /// The evaluator that decides.
        public let evaluator: PinnedServerTrustEvaluator
        let failures: TaskFailures?

        /// Creates a delegate for `trustManager`.
        public init(trustManager: PinTrustManager) {
            evaluator = PinnedServerTrustEvaluator(trustManager: trustManager)
            failures = nil
        }

        init(trustManager: PinTrustManager, failures: TaskFailures) {
            evaluator = PinnedServerTrustEvaluator(trustManager: trustManager)
            self.failures = failures
        }

        /// Answers session-level server trust challenges: `.useCredential` when the evaluator accepts, else
        /// `.cancelAuthenticationChallenge`. Other challenges get `.performDefaultHandling`.
        public func urlSession(
            _ session: URLSession, didReceive challenge: URLAuthenticationChallenge
        ) async -> (URLSession.AuthChallengeDisposition, URLCredential?) {
            await answer(challenge, task: nil)
        }

        /// For a delegate of your own (a background session's, an image loader's, a `WKNavigationDelegate`):
        /// call it first from your challenge method. Returns `true` when it took the challenge (a server trust
        /// challenge) and will call `completionHandler` (once, from a dispatch queue); `false` when the challenge
        /// is not server trust and is yours to answer.
        ///
        /// ```swift
        /// func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
        ///                 completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        ///     if pinning.handle(challenge, completionHandler: completionHandler) { return }
        ///     completionHandler(.performDefaultHandling, nil)  // your other challenges
        /// }
        /// ```
        public func handle(
            _ challenge: URLAuthenticationChallenge, task: URLSessionTask? = nil,
            completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) -> Bool {
            guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
                let trust = challenge.protectionSpace.serverTrust
            else { return false }
            let host = challenge.protectionSpace.host
            let taskID = task?.taskIdentifier
            let evaluator = evaluator
            let failures = failures
            // SecTrust and the caller's handler are not marked Sendable; each is used on the queue only, once.
            nonisolated(unsafe) let unsafeTrust = trust
            nonisolated(unsafe) let completion = completionHandler
            PinnedServerTrustEvaluator.evaluationQueue.async {
                do {
                    try evaluator.evaluate(unsafeTrust, forHost: host)
                    completion(.useCredential, URLCredential(trust: unsafeTrust))
                } catch let failure as PinnedServerTrustEvaluator.Failure {
                    if let taskID { failures?.record(failure.refusal(host: host), task: taskID) }
                    completion(.cancelAuthenticationChallenge, nil)
                } catch {
                    completion(.cancelAuthenticationChallenge, nil)
                }
            }
            return true
        }

        func answer(_ challenge: URLAuthenticationChallenge, task: Int?) async -> (
            URLSession.AuthChallengeDisposition, URLCredential?
        ) {
            guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
                let trust = challenge.protectionSpace.serverTrust
            else { return (.performDefaultHandling, nil) }
            let host = challenge.protectionSpace.host
            do {
                try await evaluator.evaluateOffCooperativePool(trust, forHost: host)
                return (.useCredential, URLCredential(trust: trust))
            } catch let failure as PinnedServerTrustEvaluator.Failure {
                if let task { failures?.record(failure.refusal(host: host), task: task) }
                return (.cancelAuthenticationChallenge, nil)
            } catch {
                return (.cancelAuthenticationChallenge, nil)
            }
        }
    }
#endif
