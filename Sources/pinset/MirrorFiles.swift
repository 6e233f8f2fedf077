import Foundation
import OpenSSLCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// The files of an export directory as last written, by SHA-256, so a watch compares in memory and rewrites
/// only what changed (temp file + rename, like `pinset export`). It never deletes a file.
///
/// The files are public documents that a web server reads, so they are written world-readable (0644, directories
/// 0755) whatever the umask: an operator who set `umask 077` for key files must not get a mirror that answers 403.
final class MirrorFiles {
    /// Creates `url` (and the missing folders above it) as 0755 whatever the umask; an existing folder keeps the
    /// mode its owner gave it.
    static func makeDirectory(_ url: URL) throws {
        var missing: [URL] = []
        var folder = url.standardizedFileURL
        while !FileManager.default.fileExists(atPath: folder.path), folder.path != "/" {
            missing.append(folder)
            folder = folder.deletingLastPathComponent()
        }
        for created in missing.reversed() {
            try FileManager.default.createDirectory(at: created, withIntermediateDirectories: false)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: created.path)
        }
    }

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
            try Self.writePublic(data, to: url)
            digests[url.path] = digest
            written.append(url.path)
        }
        return written
    }

    /// Writes `data` to a temporary file beside `url` with mode 0644, then renames it over `url`, so a reader
    /// never sees a partial file nor one it may not read.
    static func writePublic(_ data: Data, to url: URL) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).tmp-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data) else {
            throw CLIError("cannot write \(temporary.path)")
        }
        do {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: temporary.path)
            guard rename(temporary.path, url.path) == 0 else {
                throw CLIError("cannot rename \(temporary.path) to \(url.path): \(String(cString: strerror(errno)))")
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    /// Forgets what was written, so the next ``write(_:)`` compares with the disk again.
    func reset() { digests = [:] }
}
