import Foundation
import TestSupport

/// Runs the openssl CLI (and shell pipelines around it) for interop tests, and makes temp directories.
enum Shell {
    /// Runs `/bin/sh -c script` in `directory`, returning stdout; throws with stderr on a non-zero exit.
    @discardableResult
    static func run(_ script: String, in directory: URL) throws -> [UInt8] {
        [UInt8](try ProcessRunner.shell(script, in: directory))
    }

    /// Like ``run(_:in:)`` but returns only the exit status.
    static func status(_ script: String, in directory: URL) throws -> Int32 {
        try ProcessRunner.run("/bin/sh", ["-c", script], directory: directory).status
    }

    /// A fresh empty directory under the system temp directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pinset-crypto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func write(_ bytes: [UInt8], to url: URL) throws { try Data(bytes).write(to: url) }
    static func read(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }
    static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// base64url without padding, for test vectors.
func base64URLDecode(_ text: String) -> [UInt8] {
    var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while standard.count % 4 != 0 { standard += "=" }
    return [UInt8](Data(base64Encoded: standard)!)
}

func base64URLEncode(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}
