import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The admin client's HTTP transport: a session whose redirects never carry the admin token to another origin
/// (issue 40: `URLSession.shared` sent `Authorization` wherever a server redirected it; swift-corelibs-foundation
/// compares host names only, so another port of the same host got it too). A redirect keeps the header only when
/// scheme, host and port are those of the request the command made.
final class AdminTransport: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// The one transport of the process.
    static let shared = AdminTransport()

    private let lock = NSLock()
    private var pending: [Int: (body: Data, done: CheckedContinuation<(Data, URLResponse), any Error>)] = [:]
    private lazy var session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        return URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }()

    /// Sends `request` and returns the final answer's body and response (after any redirects).
    func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        try await withCheckedThrowingContinuation { done in
            let task = lock.withLock {
                // Made under the lock: no delegate call for the task can come before it is registered.
                let task = session.dataTask(with: request)
                pending[task.taskIdentifier] = (Data(), done)
                return task
            }
            task.resume()
        }
    }

    /// Whether `a` and `b` have the same scheme, host and port (default ports made explicit).
    static func sameOrigin(_ a: URL?, _ b: URL?) -> Bool {
        guard let a, let b, let schemeA = a.scheme?.lowercased(), let schemeB = b.scheme?.lowercased() else {
            return false
        }
        func port(_ url: URL, _ scheme: String) -> Int? {
            url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
        }
        return schemeA == schemeB && a.host?.lowercased() == b.host?.lowercased()
            && port(a, schemeA) == port(b, schemeB)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        var next = request
        if !Self.sameOrigin(task.originalRequest?.url, request.url) {
            next.setValue(nil, forHTTPHeaderField: "Authorization")
        }
        completionHandler(next)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { pending[dataTask.taskIdentifier]?.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = lock.withLock({ pending.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            entry.done.resume(throwing: error)
        } else if let response = task.response {
            entry.done.resume(returning: (entry.body, response))
        } else {
            entry.done.resume(throwing: URLError(.badServerResponse))
        }
    }
}
