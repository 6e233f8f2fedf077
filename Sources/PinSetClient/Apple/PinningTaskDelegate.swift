#if canImport(Security)
    import Foundation
    import Security

    /// A `URLSessionTaskDelegate` that pins server trust challenges task by task and records each refusal for
    /// its task (``PinningClient/failure(for:)``). It implements only the task-level challenge method, so the
    /// challenge reaches it with its task: the delegate of ``PinningClient/makeSession(configuration:delegateQueue:)``,
    /// and the per-task delegate for `URLSession.shared`:
    ///
    /// ```swift
    /// let (data, _) = try await URLSession.shared.data(for: request, delegate: pinning.taskDelegate)
    /// ```
    ///
    /// - Warning: Apple-only, reviewed against Apple's documentation, not built on Linux (no `Security`).
    public final class PinningTaskDelegate: NSObject, URLSessionTaskDelegate, Sendable {
        let pinning: PinningURLSessionDelegate

        init(trustManager: PinTrustManager, failures: TaskFailures) {
            pinning = PinningURLSessionDelegate(trustManager: trustManager, failures: failures)
        }

        /// Answers server trust challenges with the pins (`.useCredential` or `.cancelAuthenticationChallenge`,
        /// the refusal recorded for `task`); other challenges get `.performDefaultHandling`.
        public func urlSession(
            _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge
        ) async -> (URLSession.AuthChallengeDisposition, URLCredential?) {
            await pinning.answer(challenge, task: task.taskIdentifier)
        }
    }
#endif
