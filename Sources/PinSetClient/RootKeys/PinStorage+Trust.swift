import Foundation
import PinSetCore

extension PinStorage {
    /// The file that holds trust document `version` (`trust-<version>.pinset-trust.jws.json`).
    public func trustFileURL(version: Int) -> URL {
        directory.appendingPathComponent("trust-\(version).pinset-trust.jws.json", isDirectory: false)
    }

    /// Writes trust document `version` atomically. Every version walked is kept, so that on reload the chain
    /// is verified again from the root keys the app ships.
    public func saveTrust(_ bytes: [UInt8], version: Int) throws(Error) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(bytes).write(to: trustFileURL(version: version), options: .atomic)
        } catch {
            throw Error(
                description: "could not write \(trustFileURL(version: version).path): \(error.localizedDescription)")
        }
    }

    /// The stored trust documents `version + 1`, `version + 2`, … in order, up to the first missing one.
    public func loadTrustChain(after version: Int) -> [[UInt8]] {
        var chain: [[UInt8]] = []
        var next = version + 1
        while let data = try? Data(contentsOf: trustFileURL(version: next)) {
            chain.append([UInt8](data))
            next += 1
        }
        return chain
    }
}
