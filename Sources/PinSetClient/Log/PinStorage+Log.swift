import Foundation
import PinSetCore
import TransparencyLog

extension PinStorage {
    /// The file holding the largest accepted checkpoint of the log named `origin`
    /// (`log-<base64url(origin)>.checkpoint`, the signed note as served).
    public func checkpointFileURL(origin: String) -> URL {
        directory.appendingPathComponent("log-\(Base64URL.encode(Array(origin.utf8))).checkpoint", isDirectory: false)
    }

    /// Writes the largest accepted checkpoint of its log atomically (PROTOCOL §7.4 step 3: it survives a restart,
    /// so a fork is still seen after one).
    public func saveCheckpoint(_ note: SignedNote, origin: String) throws(Error) {
        try write(note.bytes, to: checkpointFileURL(origin: origin))
    }

    /// The stored largest checkpoint of the log named `origin`, unverified (the caller checks it under its
    /// policy), or `nil`.
    public func loadCheckpoint(origin: String) -> SignedNote? {
        guard let data = try? Data(contentsOf: checkpointFileURL(origin: origin)) else { return nil }
        return try? SignedNote(parsing: [UInt8](data))
    }

    /// Keeps the evidence of a fork (both signed notes, as the ``LogForkReport`` JSON) in
    /// `log-fork-<base64url(origin)>-<n>.json`, `n` the first free number from 1; at most 100 are kept.
    public func saveFork(_ report: LogForkReport) throws(Error) {
        let prefix = "log-fork-\(Base64URL.encode(Array(report.logOrigin.utf8)))-"
        for number in 1...100 {
            let url = directory.appendingPathComponent("\(prefix)\(number).json", isDirectory: false)
            if !FileManager.default.fileExists(atPath: url.path) {
                try write(report.encodedJSON(), to: url)
                return
            }
        }
        throw Error(description: "100 log forks are stored already in \(directory.path); the newest is not kept")
    }

    /// The forks kept by ``saveFork(_:)`` for the log named `origin`, unverified (the caller checks both notes).
    public func loadForks(origin: String) -> [LogForkReport] {
        let prefix = "log-fork-\(Base64URL.encode(Array(origin.utf8)))-"
        return (1...100).compactMap { number in
            let url = directory.appendingPathComponent("\(prefix)\(number).json", isDirectory: false)
            guard let data = try? Data(contentsOf: url) else { return nil }
            return try? JSONDecoder().decode(LogForkReport.self, from: data)
        }
    }

    private func write(_ bytes: [UInt8], to url: URL) throws(Error) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(bytes).write(to: url, options: .atomic)
        } catch {
            throw Error(description: "could not write \(url.path): \(error.localizedDescription)")
        }
    }
}
