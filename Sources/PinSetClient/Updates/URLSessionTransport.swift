import Foundation
import Locking
import PinSetCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fetches documents with `URLSession` (FoundationNetworking on Linux, where fetching works but pinning does not).
///
/// Uses an ephemeral session with HTTP caching off, so `If-None-Match` and `304` reach the updater untouched.
/// The fetch itself is protected by the document signature, not by pinning the pin server, so the transport
/// assumes a hostile network and bounds what it will take:
/// - ``timeout`` is a deadline for the whole exchange, not an idle timer: a server (or proxy) that drips one byte
///   a second is cut off when it runs out, with ``TransportLimitError/Kind/timedOut``;
/// - at most ``maximumBodyBytes`` of body are read: a larger answer is abandoned as soon as its
///   `Content-Length`, or the bytes received, go past the limit (``TransportLimitError/Kind/bodyTooLarge``),
///   so a 10 GB answer costs 64 KiB of memory, not 10 GB.
///
/// A session the transport made itself is invalidated when the last copy of the transport goes away (a
/// `URLSession` keeps its delegate alive until it is invalidated, so without that every transport would leak its
/// session and delegate). A session passed in stays the caller's to invalidate.
public struct URLSessionTransport: PinSetTransport {
    private let session: URLSession
    /// Present when the transport made its own session: it enforces the byte limit while receiving.
    let delegate: BoundedFetchDelegate?
    /// Invalidates the transport's own session once no copy of the transport holds it.
    private let owner: SessionOwner?
    /// Deadline, in seconds, for one whole exchange (connect, request, headers and body).
    public let timeout: TimeInterval
    /// The largest body accepted; default 65,535 bytes, the protocol's limit for a document.
    public let maximumBodyBytes: Int

    /// Creates a transport.
    /// - Parameters:
    ///   - session: the session to use; default an ephemeral one without a URL cache. With a session of your own
    ///     the byte limit is checked once the body is in (the session's delegate is yours, not the transport's).
    ///   - timeout: deadline for a whole exchange, default 30 seconds.
    ///   - maximumBodyBytes: largest body accepted, default ``SignedDocument/maxBytes`` (65,535 bytes).
    public init(session: URLSession? = nil, timeout: TimeInterval = 30, maximumBodyBytes: Int = SignedDocument.maxBytes)
    {
        if let session {
            self.session = session
            delegate = nil
            owner = nil
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            let delegate = BoundedFetchDelegate()
            let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
            self.session = session
            self.delegate = delegate
            owner = SessionOwner(session)
        }
        self.timeout = timeout
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// Performs the GET within ``timeout``, reading at most ``maximumBodyBytes`` of body.
    /// - Throws: ``TransportLimitError`` when a limit is hit; the session's error for other failures.
    public func get(_ url: URL, headers: [String: String]) async throws -> TransportResponse {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "GET"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let delegate {
            let task = session.dataTask(with: request)
            let limits = BoundedFetchDelegate.Limits(maximumBodyBytes: maximumBodyBytes, timeout: timeout)
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    delegate.start(task, limits: limits, continuation: continuation)
                }
            } onCancel: {
                task.cancel()
            }
        }
        // A caller's session: its delegate gets the data, so the limit is checked on the whole body.
        let deadline = timeout
        let session = session
        let finalRequest = request
        let (data, response) = try await withThrowingTaskGroup(of: (Data, URLResponse).self) { group in
            group.addTask { try await session.data(for: finalRequest) }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(max(0, deadline) * 1e9))
                throw TransportLimitError(.timedOut, limit: Int(deadline.rounded(.up)))
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
        guard data.count <= maximumBodyBytes else {
            throw TransportLimitError(.bodyTooLarge, limit: maximumBodyBytes)
        }
        return try BoundedFetchDelegate.makeResponse(response, body: [UInt8](data))
    }
}

/// Owns a `URLSession` that the library made: invalidates it (which releases its delegate) on `deinit`.
final class SessionOwner: Sendable {
    let session: URLSession
    init(_ session: URLSession) { self.session = session }
    deinit { session.finishTasksAndInvalidate() }
}

/// A limit of ``URLSessionTransport`` (or another transport) that a server's answer ran into.
public struct TransportLimitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which limit.
    public enum Kind: String, Sendable, Equatable {
        /// The body (announced or received) went past the byte limit; the rest was not read.
        case bodyTooLarge
        /// The exchange did not complete before the deadline (a slow drip, a stalled server).
        case timedOut
    }

    /// Which limit.
    public let kind: Kind
    /// The limit: bytes for ``Kind/bodyTooLarge``, seconds for ``Kind/timedOut``.
    public let limit: Int

    /// Creates an error.
    public init(_ kind: Kind, limit: Int) {
        self.kind = kind
        self.limit = limit
    }

    /// A sentence for logs.
    public var description: String {
        switch kind {
        case .bodyTooLarge: "the answer's body is larger than \(limit) bytes; the rest was not read"
        case .timedOut: "no complete answer within \(limit) s; the exchange was abandoned"
        }
    }
}

/// Collects each task's body up to the limit and completes it exactly once: on success, on error, when the body
/// grows past the limit, or when the deadline passes.
final class BoundedFetchDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    struct Limits {
        var maximumBodyBytes: Int
        var timeout: TimeInterval
    }

    private struct Pending {
        var continuation: CheckedContinuation<TransportResponse, any Error>
        var limits: Limits
        var response: URLResponse?
        var body: [UInt8] = []
    }

    private let pending = Locked<[Int: Pending]>([:])

    func start(
        _ task: URLSessionDataTask, limits: Limits, continuation: CheckedContinuation<TransportResponse, any Error>
    ) {
        let id = task.taskIdentifier
        pending.withLock { $0[id] = Pending(continuation: continuation, limits: limits) }
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0, limits.timeout)) { [weak self, weak task] in
            self?.finish(id, .failure(TransportLimitError(.timedOut, limit: Int(limits.timeout.rounded(.up)))))
            task?.cancel()
        }
        task.resume()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let id = dataTask.taskIdentifier
        let tooLarge: Int? = pending.withLock { pending in
            guard var entry = pending[id] else { return nil }
            if response.expectedContentLength > Int64(entry.limits.maximumBodyBytes) {
                return entry.limits.maximumBodyBytes
            }
            entry.response = response
            pending[id] = entry
            return nil
        }
        if let tooLarge {
            finish(id, .failure(TransportLimitError(.bodyTooLarge, limit: tooLarge)))
            completionHandler(.cancel)
        } else {
            completionHandler(.allow)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let id = dataTask.taskIdentifier
        let tooLarge: Int? = pending.withLock { pending in
            guard var entry = pending[id] else { return nil }
            if entry.body.count + data.count > entry.limits.maximumBodyBytes { return entry.limits.maximumBodyBytes }
            pending[id] = nil  // drop the reference while appending, so the array is not copied
            entry.body.append(contentsOf: data)
            pending[id] = entry
            return nil
        }
        if let tooLarge {
            finish(id, .failure(TransportLimitError(.bodyTooLarge, limit: tooLarge)))
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let id = task.taskIdentifier
        if let error {
            finish(id, .failure(error))
            return
        }
        guard let entry = pending.withLock({ $0[id] }) else { return }
        finish(id, Result { try Self.makeResponse(entry.response ?? task.response, body: entry.body) })
    }

    /// Completes the task's continuation once; later calls for the same task do nothing.
    private func finish(_ id: Int, _ result: Result<TransportResponse, any Error>) {
        guard let entry = pending.withLock({ $0.removeValue(forKey: id) }) else { return }
        entry.continuation.resume(with: result)
    }

    static func makeResponse(_ response: URLResponse?, body: [UInt8]) throws -> TransportResponse {
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return TransportResponse(status: http.statusCode, headers: fields, body: body)
    }
}
