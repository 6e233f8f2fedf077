import Foundation
import OpenSSLCrypto

/// The files of an export directory as last written, by SHA-256, so a watch compares in memory and rewrites
/// only what changed (temp file + rename, like `pinset export`). It never deletes a file.
final class MirrorFiles {
    private var digests: [String: [UInt8]] = [:]

    /// Writes every file whose bytes differ from what is on disk (first call) or from the last write; returns
    /// the paths written.
    func write(_ files: [(URL, Data)]) throws -> [String] {
        var written: [String] = []
        for (url, data) in files {
            let digest = SHA256Digest.hash(data)
            if let known = digests[url.path] {
                if known == digest { continue }
            } else if FileManager.default.contents(atPath: url.path) == data {
                digests[url.path] = digest
                continue
            }
            try data.write(to: url, options: .atomic)
            digests[url.path] = digest
            written.append(url.path)
        }
        return written
    }

    /// Forgets what was written, so the next ``write(_:)`` compares with the disk again.
    func reset() { digests = [:] }
}
