import ArgumentParser
import Foundation
import PinSetCore
import PinSetServer

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

    func run() throws {
        let path = Environment.databasePath(db)
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError("no database at \(path)") }
        if watch {
            guard pollInterval > 0, pollInterval <= 1.5 else {
                throw CLIError("--poll-interval must be over 0 and at most 1.5 s")
            }
            try ExportWatcher(databasePath: path, out: out, exec: exec, pollInterval: pollInterval).run()
            return
        }
        guard exec == nil else { throw CLIError("--exec runs only with --watch") }
        let store = try PinDatabase(path: path)
        let (files, hosts, trust) = try Self.files(store: store, out: out)
        try? store.close()
        let written = try MirrorFiles().write(files).count
        let unchanged = files.count - written
        print(
            "exported \(hosts) host(s), keys and \(trust) trust document(s) to \(out): written \(written), unchanged \(unchanged)"
        )
    }

    /// Every file of the mirror under `out` with its bytes (creating the directories), the number of hosts and
    /// the number of trust documents.
    static func files(store: PinDatabase, out: String) throws -> (files: [(URL, Data)], hosts: Int, trust: Int) {
        let documents = try PublishedDocuments.load(store: store)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let keys = try encoder.encode(PublishedDocuments.keySet(store: store))
        let trust = try PublishedDocuments.trustDocuments(store: store)

        let root = URL(fileURLWithPath: out)
        let pinsDirectory = root.appendingPathComponent("pins")
        try MirrorFiles.makeDirectory(pinsDirectory)
        var files: [(URL, Data)] = [(root.appendingPathComponent("keys"), keys)]
        for document in documents {
            guard !document.host.isEmpty, !document.host.contains("/"), !document.host.hasPrefix(".") else {
                throw CLIError("refusing to export a document for the unsafe file name \"\(document.host)\"")
            }
            files.append((pinsDirectory.appendingPathComponent(document.host), Data(document.body)))
        }
        // Trust documents (PROTOCOL §6): trust/<version>, immutable, and the newest again as trust/index.json,
        // which the web server answers for GET /trust (a file cannot also be the directory trust/).
        if let newest = trust.last {
            let trustDirectory = root.appendingPathComponent("trust")
            try MirrorFiles.makeDirectory(trustDirectory)
            for (version, body) in trust {
                files.append((trustDirectory.appendingPathComponent(String(version)), Data(body)))
            }
            files.append((trustDirectory.appendingPathComponent("index.json"), Data(newest.body)))
        }
        return (files, documents.count, trust.count)
    }
}
