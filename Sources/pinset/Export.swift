import ArgumentParser
import Foundation
import PinSetCore
import PinSetStorage

/// `pinset export`: writes the published documents as static files for any web server or CDN.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the current signed documents as DIR/pins/<host> and the JWKS as DIR/keys.",
        discussion: """
            Reads the database only (no signing key needed; nothing is re-signed). Idempotent: a file is rewritten \
            (temp file + rename) only when its bytes changed. It never deletes anything: a retired host keeps its \
            file, which holds the signed empty set clients need to stop pinning it. Serve the files with \
            Content-Type: application/json. Re-run it after every change and before documents expire (the \
            server re-signs them; an export is only as fresh as its last run).
            """)
    @Option(help: "SQLite database file. Env PINSET_DB. Default ./data/pinset.sqlite.") var db: String?
    @Option(help: "Output directory (created if missing).") var out: String
    @Flag(help: "Keep running: re-export within 2 s of every committed write, until SIGTERM or SIGINT.")
    var watch = false
    @Option(
        help:
            "With --watch: a shell command run after each batch of changes (e.g. rsync or aws s3 sync); its exit status and output are logged, a failure never stops the watch."
    )
    var exec: String?
    @Option(help: "With --watch: seconds between checks of the database for changes. Default 0.3.")
    var pollInterval: Double = 0.3
    @Option(
        help:
            "The server's base URL: also export its transparency log (log/checkpoint, log/tile/...) and each document's proof as proof/pins/<host> and proof/trust/<version>; a document is written only once a proof of its exact bytes is served."
    )
    var logFrom: String?

    func run() throws {
        let path = Environment.databasePath(db)
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError("no database at \(path)") }
        if watch {
            guard pollInterval > 0, pollInterval <= 1.5 else {
                throw CLIError("--poll-interval must be over 0 and at most 1.5 s")
            }
            try ExportWatcher(
                databasePath: path, out: out, exec: exec, pollInterval: pollInterval,
                log: try logFrom.map { ExportLog(source: try LogSource($0), root: URL(fileURLWithPath: out)) }
            ).run()
            return
        }
        guard exec == nil else { throw CLIError("--exec runs only with --watch") }
        let store = try PinDatabase(path: path)
        let log = try logFrom.map { ExportLog(source: try LogSource($0), root: URL(fileURLWithPath: out)) }
        let export = try Self.files(store: store, out: out, log: log)
        try? store.close()
        let written = try MirrorFiles().write(export.files).count
        let unchanged = export.files.count - written
        print(
            "exported \(export.hosts) host(s), keys and \(export.trust) trust document(s) to \(out): written \(written), unchanged \(unchanged)"
                + (logFrom == nil ? "" : ", and the log")
        )
        if !export.heldBack.isEmpty {
            print("held back (no proof of them served yet): \(export.heldBack.sorted().joined(separator: " "))")
        }
    }

    /// What an export writes.
    struct Export {
        /// Every file with its bytes, in the order to write them.
        var files: [(URL, Data)]
        var hosts: Int
        var trust: Int
        /// Documents not written because no proof of their bytes is served yet (with `--log-from`).
        var heldBack: Set<String> = []
        /// What the log added, with `--log-from`.
        var log: ExportLog.Files?
    }

    /// Every file of the mirror under `out` with its bytes (creating the directories), the number of hosts and
    /// the number of trust documents; with `log`, the log's files and the proofs too (``ExportLog``; call its
    /// `didWrite` with ``Export/log`` once the files are written).
    static func files(store: PinDatabase, out: String, log: ExportLog? = nil) throws -> Export {
        let documents = try PublishedDocuments.load(store: store)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let keys = try encoder.encode(PublishedDocuments.keySet(store: store))
        let trust = try PublishedDocuments.trustDocuments(store: store)

        let root = URL(fileURLWithPath: out)
        try MirrorFiles.makeDirectory(root.appendingPathComponent("pins"))
        var published: [(path: String, body: [UInt8])] = []
        for document in documents {
            guard !document.host.isEmpty, !document.host.contains("/"), !document.host.hasPrefix(".") else {
                throw CLIError("refusing to export a document for the unsafe file name \"\(document.host)\"")
            }
            published.append(("pins/" + document.host, document.body))
        }
        // Trust documents (PROTOCOL §6): trust/<version>, immutable, and the newest again as trust/index.json,
        // which the web server answers for GET /trust (a file cannot also be the directory trust/).
        if !trust.isEmpty { try MirrorFiles.makeDirectory(root.appendingPathComponent("trust")) }
        for (version, body) in trust { published.append(("trust/\(version)", body)) }

        var export = Export(
            files: [(root.appendingPathComponent("keys"), keys)], hosts: documents.count, trust: trust.count)
        let logFiles = try log?.files(documents: published)
        export.log = logFiles
        export.files += logFiles?.before ?? []
        export.heldBack = logFiles?.heldBack ?? []
        for (path, body) in published where !export.heldBack.contains(path) {
            export.files.append((root.appendingPathComponent(path), Data(body)))
        }
        if let newest = trust.last, !export.heldBack.contains("trust/\(newest.version)") {
            export.files.append((root.appendingPathComponent("trust/index.json"), Data(newest.body)))
        }
        if let checkpoint = logFiles?.checkpoint { export.files.append(checkpoint) }
        return export
    }
}
