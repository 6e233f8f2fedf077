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

    func run() throws {
        let path = Environment.string(db, "PINSET_DB", default: "./data/pinset.sqlite")
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError("no database at \(path)") }
        let store = try PinDatabase(path: path)
        let documents = try PublishedDocuments.load(store: store)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let keys = try encoder.encode(PublishedDocuments.keySet(store: store))
        let trust = try PublishedDocuments.trustDocuments(store: store)
        try? store.close()

        let root = URL(fileURLWithPath: out)
        let pinsDirectory = root.appendingPathComponent("pins")
        try FileManager.default.createDirectory(at: pinsDirectory, withIntermediateDirectories: true)
        var written = 0
        var unchanged = 0
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
            try FileManager.default.createDirectory(at: trustDirectory, withIntermediateDirectories: true)
            for (version, body) in trust {
                files.append((trustDirectory.appendingPathComponent(String(version)), Data(body)))
            }
            files.append((trustDirectory.appendingPathComponent("index.json"), Data(newest.body)))
        }
        for (url, data) in files {
            if FileManager.default.contents(atPath: url.path) == data {
                unchanged += 1
            } else {
                try data.write(to: url, options: .atomic)
                written += 1
            }
        }
        print(
            "exported \(documents.count) host(s), keys and \(trust.count) trust document(s) to \(out): written \(written), unchanged \(unchanged)"
        )
    }
}
