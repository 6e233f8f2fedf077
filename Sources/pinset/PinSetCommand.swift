import ArgumentParser

/// The `pinset` command: the server and the administrator's tools.
@main
struct PinSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pinset",
        abstract: "Publish signed TLS pin sets, and manage them.",
        subcommands: [
            Serve.self, Keygen.self, Token.self, PinCommand.self, HostsCommand.self, ShowCommand.self, SetCommand.self,
            AddCommand.self, RemoveCommand.self, RetireCommand.self, HistoryCommand.self, VerifyCommand.self,
            FetchCommand.self, ExportCommand.self, ReportsCommand.self, Seed.self, TrustCommand.self,
            BackupCommand.self,
            StatusCommand.self, CheckCommand.self, HealthCommand.self, SignBench.self, WitnessCommand.self,
            LogCommand.self,
        ]
    )
}
