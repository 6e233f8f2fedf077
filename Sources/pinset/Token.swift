import ArgumentParser
import Foundation
import PinSetAdminAPI
import PinSetStorage

/// `pinset token`: admin tokens, managed directly in the database.
struct Token: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, list and revoke admin API tokens.",
        subcommands: [Create.self, List.self, Revoke.self])

    struct DatabaseOption: ParsableArguments {
        @Option(help: "SQLite database file. Env PINSET_DB. Default ./data/pinset.sqlite.")
        var db: String?

        func open() throws -> AdminTokens {
            try AdminTokens(
                store: PinDatabase(path: Environment.databasePath(db)))
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Create a token. It is printed once, as the last line of standard output; only its hash is stored.")
        @OptionGroup var database: DatabaseOption
        @Option(help: "A name for the token; the audit history records it with every write.")
        var name: String
        @Option(
            help:
                "reader (read pin sets, history, reports), writer (also change pin sets) or admin (also trust documents and tokens). Default admin."
        )
        var role: String = "admin"
        @Option(
            help:
                "A host the token may act on: api.example.com (that host) or *.example.com (every name below example.com, not example.com itself). Repeatable. Default every host."
        )
        var hosts: [String] = []

        func run() throws {
            let scope = try TokenScope(parsingRole: role, hosts: hosts)
            let token = try database.open().create(name: name, scope: scope)
            print(
                "created token \"\(name)\" (role \(scope.role.rawValue), hosts \(scope.hostsDescription); shown once; store it now):"
            )
            print(token)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List token names and dates (never the tokens).")
        @OptionGroup var database: DatabaseOption

        func run() throws {
            print("name\tcreated\tstate\trole\thosts")
            for token in try database.open().list() {
                let state = token.revokedAt.map { "revoked \($0)" } ?? "active"
                print(
                    "\(token.name)\tcreated \(token.createdAt)\t\(state)\t\(token.role)\t\(token.hosts?.joined(separator: " ") ?? "*")"
                )
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a token by name; a running server refuses it at once.")
        @OptionGroup var database: DatabaseOption
        @Argument(help: "The token's name.")
        var name: String

        func run() throws {
            try database.open().revoke(name: name)
            print("revoked \"\(name)\"")
        }
    }
}
