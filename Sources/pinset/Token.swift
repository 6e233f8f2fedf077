import ArgumentParser
import Foundation
import PinSetServer

/// `pinset token`: admin tokens, managed directly in the database.
struct Token: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, list and revoke admin API tokens.",
        subcommands: [Create.self, List.self, Revoke.self])

    struct DatabaseOption: ParsableArguments {
        @Option(help: "SQLite database file. Env PINSET_DB. Default ./data/pinset.sqlite.")
        var db: String?

        func open() throws -> AdminTokens {
            try AdminTokens(store: PinDatabase(path: Environment.string(db, "PINSET_DB", default: "./data/pinset.sqlite")))
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a token. It is printed once, as the last line of standard output; only its hash is stored.")
        @OptionGroup var database: DatabaseOption
        @Option(help: "A name for the token; the audit history records it with every write.")
        var name: String

        func run() throws {
            let token = try database.open().create(name: name)
            print("created token \"\(name)\" (shown once; store it now):")
            print(token)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List token names and dates (never the tokens).")
        @OptionGroup var database: DatabaseOption

        func run() throws {
            for token in try database.open().list() {
                let state = token.revokedAt.map { "revoked \($0)" } ?? "active"
                print("\(token.name)\tcreated \(token.createdAt)\t\(state)")
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a token by name; a running server refuses it at once.")
        @OptionGroup var database: DatabaseOption
        @Argument(help: "The token's name.")
        var name: String

        func run() throws {
            try database.open().revoke(name: name)
            print("revoked \"\(name)\"")
        }
    }
}
