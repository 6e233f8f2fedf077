import ArgumentParser

/// The `pinset` command: the server and the administrator's tools.
@main
struct PinSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pinset",
        abstract: "Publish signed TLS pin sets, and manage them.",
        subcommands: []
    )
}
