import Foundation
import PinSetCore

/// Persists accepted documents, one file per host (`<host>.pinset.jws.json`) in a directory the app chooses.
///
/// Files hold the document exactly as received, so on reload it is verified again (signature and host) and its
/// version keeps rollback protection across restarts.
public struct PinStorage: Sendable {
    /// The directory holding the files.
    public let directory: URL

    /// Why storage failed.
    public struct Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        /// What went wrong and with which path.
        public let description: String
    }

    /// Creates a storage in `directory` (created on first save if missing).
    public init(directory: URL) { self.directory = directory }

    /// The file that holds the document of `host`.
    public func fileURL(for host: String) -> URL {
        directory.appendingPathComponent("\(host).pinset.jws.json", isDirectory: false)
    }

    /// Writes the document of `host` atomically (temporary file, then rename).
    public func save(_ bytes: [UInt8], for host: String) throws(Error) {
        let host = (try? HostName.normalize(host)) ?? ""
        guard !host.isEmpty else {
            throw Error(description: "refusing to store a document under a host that is not a DNS name")
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(bytes).write(to: fileURL(for: host), options: .atomic)
        } catch {
            throw Error(description: "could not write \(fileURL(for: host).path): \(error.localizedDescription)")
        }
    }

    /// The stored document of `host`, or `nil` if there is none.
    public func load(host: String) -> [UInt8]? {
        guard let host = try? HostName.normalize(host),
            let data = try? Data(contentsOf: fileURL(for: host))
        else { return nil }
        return [UInt8](data)
    }

    /// Every stored document, by host.
    public func loadAll() -> [String: [UInt8]] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var result: [String: [UInt8]] = [:]
        for name in names where name.hasSuffix(".pinset.jws.json") {
            let host = String(name.dropLast(".pinset.jws.json".count))
            if let bytes = load(host: host) { result[host] = bytes }
        }
        return result
    }
}
