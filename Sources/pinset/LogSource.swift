import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where a log's files are read: the base URL of a server or mirror (`http(s)://…`, whose `log/checkpoint` is the
/// checkpoint), or a local directory (a path or `file://`, as `pinset export` writes it).
///
/// Nothing read is trusted: checkpoints are checked against the log key, tiles and entries against them.
struct LogSource {
    /// The base, without a trailing slash.
    let base: String
    private let isRemote: Bool
    private let session: URLSession

    /// The largest file read: a signed note may hold 128 KiB, a full entry bundle 256 entries of up to 64 KiB.
    static let maxBytes = 256 * 65_538

    /// A file that is not there (404 or 410, or no such local file), as opposed to a failure to read it.
    struct NotFound: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path): not found" }
    }

    /// Creates a source; `base` is an `http(s)` URL, a `file://` URL or a directory path.
    init(_ base: String) throws {
        var trimmed = base
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        if trimmed.hasPrefix("http://") || trimmed.hasPrefix("https://") {
            guard URL(string: trimmed)?.host != nil else { throw CLIError("\(base) is not a URL") }
            isRemote = true
        } else {
            if trimmed.hasPrefix("file://") { trimmed.removeFirst("file://".count) }
            isRemote = false
        }
        self.base = trimmed
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 10
        session = URLSession(configuration: configuration)
    }

    /// The bytes of `path` below the base (e.g. `log/checkpoint`).
    /// - Throws: ``NotFound``, or a ``CLIError`` saying why it could not be read.
    func read(_ path: String) throws -> [UInt8] {
        guard isRemote else {
            let full = base + "/" + path
            guard FileManager.default.fileExists(atPath: full) else { throw NotFound(path: path) }
            guard let data = FileManager.default.contents(atPath: full) else { throw CLIError("cannot read \(full)") }
            guard data.count <= Self.maxBytes else { throw CLIError("\(full) is too large") }
            return [UInt8](data)
        }
        guard let url = URL(string: base + "/" + path) else { throw CLIError("cannot make a URL of \(path)") }
        let (data, response, error) = Self.perform(URLRequest(url: url), session: session)
        if let error { throw CLIError("cannot fetch \(url): \(error.localizedDescription)") }
        guard let response else { throw CLIError("\(url) did not answer HTTP") }
        if response.statusCode == 404 || response.statusCode == 410 { throw NotFound(path: path) }
        guard response.statusCode == 200 else { throw CLIError("\(url) answered \(response.statusCode)") }
        let body = data ?? Data()
        guard body.count <= Self.maxBytes else { throw CLIError("\(url) is too large") }
        return [UInt8](body)
    }
}

extension LogSource {
    /// Sends `request` and waits for the answer (the CLI's loops are synchronous; URLSession answers on its own
    /// queue).
    static func perform(_ request: URLRequest, session: URLSession) -> (Data?, HTTPURLResponse?, (any Error)?) {
        let box = ResponseBox()
        session.dataTask(with: request) { data, response, error in
            box.set(data, response as? HTTPURLResponse, error)
        }.resume()
        return box.wait()
    }
}

/// One URLSession answer, handed from its queue to the waiting caller.
private final class ResponseBox: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var value: (Data?, HTTPURLResponse?, (any Error)?) = (nil, nil, nil)

    func set(_ data: Data?, _ response: HTTPURLResponse?, _ error: (any Error)?) {
        value = (data, response, error)
        done.signal()
    }

    func wait() -> (Data?, HTTPURLResponse?, (any Error)?) {
        done.wait()
        return value
    }
}
