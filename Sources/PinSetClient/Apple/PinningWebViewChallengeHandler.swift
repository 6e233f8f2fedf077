#if canImport(WebKit) && canImport(Security)
    import Foundation
    import Security

    /// Pins the server trust challenges of a `WKWebView`: call it first from your `WKNavigationDelegate`.
    ///
    /// ```swift
    /// let webPinning = PinningWebViewChallengeHandler(client: pinning)
    ///
    /// func webView(_ webView: WKWebView, didReceive challenge: URLAuthenticationChallenge,
    ///              completionHandler: @escaping @MainActor @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
    ///     if webPinning.handle(challenge, completionHandler: completionHandler) { return }  // server trust: pinned
    ///     completionHandler(.performDefaultHandling, nil)                                    // your other challenges
    /// }
    /// ```
    ///
    /// The evaluation is the one of every adapter (``PinnedServerTrustEvaluator``: `SecTrustEvaluateWithError`, then
    /// ``PinTrustManager/evaluate(chain:host:now:)``) on ``PinnedServerTrustEvaluator/evaluationQueue``; the answer
    /// reaches WebKit on the main actor, as it expects.
    ///
    /// - Warning: A web view's network process keeps its own connections and TLS sessions, which no swap reaches:
    ///   reload the web view from ``PinningClient/onSetsTightened(_:)`` if a tightened set must apply at once.
    ///   Apple-only and thin on purpose; CI runs on Linux and cannot compile it (no WebKit, no `Security`). One Xcode
    ///   build is still needed.
    public struct PinningWebViewChallengeHandler: Sendable {
        let delegate: PinningURLSessionDelegate

        /// Creates a handler pinning with `client`'s sets (refusals are not recorded per task: a web view has none).
        public init(client: PinningClient) {
            delegate = PinningURLSessionDelegate(trustManager: client.trustManager, failures: client.failures)
        }

        /// Takes a server trust challenge and answers it (`.useCredential` or `.cancelAuthenticationChallenge`), on
        /// the main actor, once; returns `true`. Returns `false` for any other challenge, which is yours to answer.
        public func handle(
            _ challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @MainActor (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) -> Bool {
            delegate.handle(challenge) { disposition, credential in
                Task { @MainActor in completionHandler(disposition, credential) }
            }
        }

        /// For the async form of the delegate method (`webView(_:respondTo:)`): the answer to any challenge,
        /// `.performDefaultHandling` when it is not server trust.
        public func respond(to challenge: URLAuthenticationChallenge) async -> (
            URLSession.AuthChallengeDisposition, URLCredential?
        ) {
            await delegate.answer(challenge, task: nil)
        }
    }
#endif
