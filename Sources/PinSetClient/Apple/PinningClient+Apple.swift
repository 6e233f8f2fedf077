#if canImport(Security)
    import Foundation
    import Locking
    import Security

    extension PinningClient {
        /// A pinned `URLSession` that the client recreates after every swap that tightens, so that no resumed TLS
        /// session (which raises no trust challenge, Apple QA1727) outlives the set that allowed it. Read
        /// ``PinnedSession/session`` at each use, or call ``PinnedSession/data(for:)``, which also turns a pin
        /// refusal into a ``PinRefusal``.
        /// - Parameters:
        ///   - configuration: copied; default `.default`.
        ///   - delegateQueue: default `nil` (a serial queue of URLSession's own).
        ///
        /// - Warning: A background configuration (`.background(withIdentifier:)`) gets a session that is made once
        ///   and **never recreated**: Apple allows one session per background identifier (a second one, made while
        ///   the first finishes its transfers, is undefined behaviour), and the transfers run in a system process
        ///   whose TLS sessions no new session of the app reaches. Its delegate answers trust challenges only, so
        ///   the app cannot receive a download through it, and ``PinnedSession/data(for:)`` does not work there
        ///   (background sessions take no completion handlers). For background transfers, give the session your
        ///   own delegate and call ``handle(_:task:completionHandler:)`` from its task-level challenge method.
        public func makeSession(
            configuration: URLSessionConfiguration = .default, delegateQueue: OperationQueue? = nil
        ) -> PinnedSession {
            nonisolated(unsafe) let configuration = configuration.copy() as! URLSessionConfiguration
            nonisolated(unsafe) let queue = delegateQueue
            let delegate = taskDelegate
            let make: @Sendable () -> URLSession = {
                URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
            }
            let retire: @Sendable (URLSession) -> Void = { $0.finishTasksAndInvalidate() }
            // One session per background identifier (Apple): such a session is not rotated.
            let resource =
                configuration.identifier == nil
                ? pinnedResource(make: make, retire: retire) : PinnedResource(make: make, retire: retire)
            return PinnedSession(resource: resource, failures: failures)
        }

        /// A task delegate that pins and records refusals for ``failure(for:)``: the per-task delegate for
        /// `URLSession.shared` (`URLSession.shared.data(for: request, delegate: pinning.taskDelegate)`).
        public var taskDelegate: PinningTaskDelegate {
            PinningTaskDelegate(trustManager: trustManager, failures: failures)
        }

        /// For a delegate of your own (a background session's, an image loader's, a `WKNavigationDelegate`'s
        /// `webView(_:didReceive:completionHandler:)`): returns `true` when it took the challenge (server trust)
        /// and will call `completionHandler`; `false` when the challenge is yours to answer.
        public func handle(
            _ challenge: URLAuthenticationChallenge, task: URLSessionTask? = nil,
            completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) -> Bool {
            PinningURLSessionDelegate(trustManager: trustManager, failures: failures)
                .handle(challenge, task: task, completionHandler: completionHandler)
        }

        /// Why pinning refused `task`, when it did (the task itself failed with `URLError.cancelled`). Kept for
        /// the newest 256 refused tasks of the client's sessions, ``taskDelegate`` and ``handle(_:task:completionHandler:)``.
        public func failure(for task: URLSessionTask) -> PinRefusal? {
            failures.refusal(task: task.taskIdentifier)
        }

        /// The evaluator for Alamofire (`ServerTrustEvaluating`) and other `SecTrust` callers.
        public var serverTrustEvaluator: PinnedServerTrustEvaluator {
            PinnedServerTrustEvaluator(trustManager: trustManager)
        }
    }

    /// A `URLSession` pinned by a ``PinningClient`` and recreated after every swap that tightens
    /// (``PinningClient/makeSession(configuration:delegateQueue:)``).
    public final class PinnedSession: Sendable {
        let resource: PinnedResource<URLSession>
        let failures: TaskFailures

        init(resource: PinnedResource<URLSession>, failures: TaskFailures) {
            self.resource = resource
            self.failures = failures
        }

        /// The session to use now (do not keep it: after a swap that tightens it is invalidated and a new one
        /// takes its place; tasks already running on the old one finish).
        ///
        /// - Warning: A task created on a session read just before such a swap meets an invalidated session, for
        ///   which Foundation raises an exception. ``data(for:)`` and ``withSession(_:)`` create their task under the
        ///   lock the swap takes; prefer them.
        public var session: URLSession { resource.resource }

        /// Runs `body` with the session in force, before any swap can invalidate it: create and resume the task
        /// inside `body`, and keep it short (it holds the lock a swap takes).
        public func withSession<R>(_ body: (URLSession) throws -> R) rethrows -> R {
            try resource.withResource(body)
        }

        /// `session.dataTask(with:completionHandler:)`, awaited; a pin refusal throws ``PinRefusal`` instead of the
        /// bare `URLError.cancelled`. Not for a background configuration: background sessions take no completion
        /// handlers (Foundation raises an exception).
        public func data(for request: URLRequest) async throws -> (Data, URLResponse) {
            let failures = failures
            let identifier = Locked<Int?>(nil)
            return try await withCheckedThrowingContinuation { continuation in
                withSession { session in
                    let task = session.dataTask(with: request) { data, response, error in
                        if let error {
                            if let id = identifier.withLock({ $0 }), let refusal = failures.refusal(task: id) {
                                continuation.resume(throwing: refusal)
                            } else {
                                continuation.resume(throwing: error)
                            }
                        } else if let response {
                            continuation.resume(returning: (data ?? Data(), response))
                        } else {
                            continuation.resume(throwing: URLError(.badServerResponse))
                        }
                    }
                    identifier.withLock { $0 = task.taskIdentifier }
                    task.resume()
                }
            }
        }

        /// Invalidates the session for good (tasks running finish) and stops recreating it.
        public func invalidate() { resource.close() }
    }
#endif
