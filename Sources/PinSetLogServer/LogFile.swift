import PinSetCore
import ReadCache

/// One file a C2SP tlog-tiles log serves below its prefix (`/log/`): the checkpoint, a tile or an entry bundle.
package struct LogFile: Sendable, Equatable {
    /// The path below the prefix: `checkpoint`, `tile/0/000`, `tile/entries/001.p/7`, …
    package let path: String
    /// The bytes served.
    package let body: [UInt8]
    /// Whether the file never changes once served (full tiles and bundles); a partial tile never changes
    /// either but may go away once the full one exists; the checkpoint changes with every signature.
    package let isFull: Bool

    /// `text/plain; charset=utf-8` for the checkpoint, `application/octet-stream` for tiles and bundles.
    package var contentType: String {
        path == "checkpoint" ? "text/plain; charset=utf-8" : "application/octet-stream"
    }

    /// The `Cache-Control` C2SP tlog-tiles asks for: a year and `immutable` for full tiles, a minute for partial
    /// ones, a few seconds for the checkpoint.
    package var cacheControl: String {
        if path == "checkpoint" { return "public, max-age=5" }
        return isFull ? "public, max-age=31536000, immutable" : "public, max-age=60"
    }

    /// The resource served from memory, keyed by `prefix + path` (e.g. `/log/tile/0/000`). The checkpoint's ETag
    /// is made from its SHA-256; a tile's or bundle's is its path, since a tile path (with its width) names bytes
    /// that never change: no hashing of up to 256 documents for every checkpoint.
    package func resource(prefix: String, version: Int, crypto: any TrustCrypto) -> CachedResource {
        let etag = path == "checkpoint" ? ETag.of(sha256: crypto.sha256(body)) : "\"\(path)\""
        return CachedResource(
            key: Array((prefix + path).utf8), etag: etag, body: body, version: version,
            contentType: contentType, cacheControl: cacheControl)
    }
}
