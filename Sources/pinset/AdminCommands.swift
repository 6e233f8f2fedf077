import ArgumentParser
import Foundation
import PinSetAdminAPI
import PinSetCore

/// Shared rendering and pin-input helpers of the admin subcommands.
enum AdminOutput {
    static func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        do { return try AdminJSON.decoder.decode(type, from: data) } catch {
            throw CLIError("the server's answer is not the expected JSON: \(error)")
        }
    }

    static func printDetail(_ data: Data, options: ServerOptions) throws {
        if options.printJSON(data) { return }
        let detail = try decode(HostDetail.self, data)
        print("host:              \(detail.host)")
        print("version:           \(detail.version)")
        print("etag:              \(detail.etag)")
        print("enforce:           \(detail.enforce)")
        print("includeSubdomains: \(detail.includeSubdomains)")
        if let uri = detail.reportUri { print("reportUri:         \(uri)") }
        print("issuedAt:          \(RFC3339.format(detail.issuedAt))")
        print("expiresAt:         \(RFC3339.format(detail.expiresAt))")
        print("kid:               \(detail.kid)")
        print("pins:              \(detail.pins.count)")
        for pin in detail.pins {
            var line = "  \(pin.sha256)  \(pin.role.rawValue)  \(pin.type.rawValue)"
            if let expiresAt = pin.expiresAt { line += "  expires \(RFC3339.format(expiresAt))" }
            if let comment = pin.comment { line += "  # \(comment)" }
            print(line)
        }
        struct Written: Decodable { var preflight: PreflightReport? }
        if let preflight = (try? AdminJSON.decoder.decode(Written.self, from: data))?.preflight {
            let forced = preflight.forced ? " (forced)" : ""
            print("preflight:         \(preflight.status.rawValue)\(forced): \(preflight.detail)")
        }
    }

    static func pinInputs(pins: [String], certs: [String], role: PinRole?) throws -> [PinInput] {
        var inputs = pins.map { PinInput(sha256: $0, role: role) }
        for file in certs {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CLIError("cannot read the certificate file \(file)")
            }
            inputs.append(PinInput(certificate: String(decoding: data, as: UTF8.self), role: role))
        }
        return inputs
    }

    static func body<T: Encodable>(_ value: T) throws -> Data {
        try AdminJSON.encoder.encode(value)
    }
}

/// `pinset hosts`: every host the server publishes.
struct HostsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "hosts", abstract: "List every pinned host.")
    @OptionGroup var options: ServerOptions

    func run() async throws {
        let data = try await options.client().send("GET", "/admin/hosts")
        if options.printJSON(data) { return }
        struct Hosts: Decodable { var hosts: [HostSummary] }
        let hosts = try AdminOutput.decode(Hosts.self, data).hosts
        print("HOST\tVERSION\tPINS\tUPDATED\tEXPIRES")
        for host in hosts {
            print(
                "\(host.host)\t\(host.version)\t\(host.pinCount)\t\(RFC3339.format(host.updatedAt))\t\(RFC3339.format(host.expiresAt))"
            )
        }
    }
}

/// `pinset show HOST`: the current set of one host.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a host's current pin set.")
    @OptionGroup var options: ServerOptions
    @Argument(help: "The host.") var host: String

    func run() async throws {
        let data = try await options.client().send("GET", "/admin/hosts/\(host.pathSegment)")
        try AdminOutput.printDetail(data, options: options)
    }
}

/// `pinset set HOST`: replaces (or creates) a host's whole set.
struct SetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Replace (or create) a host's pin set.",
        discussion: "An enforcing set needs at least two pins, one of them a backup (the server answers 422 otherwise)."
    )
    @OptionGroup var options: ServerOptions
    @Argument(help: "The host.") var host: String
    @Option(help: "A current pin (standard base64 SHA-256). Repeatable.") var pin: [String] = []
    @Option(help: "A backup pin (standard base64 SHA-256). Repeatable.") var backup: [String] = []
    @Option(help: "A certificate file (PEM/DER) whose SPKI becomes a current pin. Repeatable.") var cert: [String] = []
    @Option(help: "A certificate file whose SPKI becomes a backup pin. Repeatable.") var backupCert: [String] = []
    @Flag(help: "The set also applies to every subdomain.") var includeSubdomains = false
    @Flag(help: "Report-only: failures are reported, connections not blocked (enforce=false).") var reportOnly = false
    @Option(help: "Where clients POST pin failure reports.") var reportUri: String?
    @Option(help: "Only write if the host's current ETag is this one (412 otherwise).") var ifMatch: String?
    @Flag(help: "Publish even if the server's pre-flight check refuses (would-lock-out); recorded in the history.")
    var force = false

    func run() async throws {
        let pins =
            try AdminOutput.pinInputs(pins: pin, certs: cert, role: .current)
            + AdminOutput.pinInputs(pins: backup, certs: backupCert, role: .backup)
        var request = SetRequest(
            pins: pins, includeSubdomains: includeSubdomains, enforce: !reportOnly, reportUri: reportUri)
        request.force = force
        let data = try await options.client().send(
            "PUT", "/admin/hosts/\(host.pathSegment)", body: AdminOutput.body(request), ifMatch: ifMatch)
        try AdminOutput.printDetail(data, options: options)
    }
}

/// `pinset add HOST`: adds pins to an existing set.
struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add pins to a host's set.")
    @OptionGroup var options: ServerOptions
    @Argument(help: "The host.") var host: String
    @Option(help: "A pin (standard base64 SHA-256). Repeatable.") var pin: [String] = []
    @Option(help: "A certificate file (PEM/DER) whose SPKI becomes a pin. Repeatable.") var cert: [String] = []
    @Option(help: "Role of the added pins: current, backup or future. Default current.") var role: String = "current"
    @Option(help: "Only write if the host's current ETag is this one (412 otherwise).") var ifMatch: String?
    @Flag(help: "Publish even if the server's pre-flight check refuses (would-lock-out); recorded in the history.")
    var force = false

    func validate() throws {
        guard PinRole(rawValue: role) != nil else { throw ValidationError("--role must be current, backup or future") }
        guard !pin.isEmpty || !cert.isEmpty else { throw ValidationError("give at least one --pin or --cert") }
    }

    func run() async throws {
        var request = PinsRequest(
            pins: try AdminOutput.pinInputs(pins: pin, certs: cert, role: PinRole(rawValue: role)))
        request.force = force
        let data = try await options.client().send(
            "POST", "/admin/hosts/\(host.pathSegment)/pins", body: AdminOutput.body(request), ifMatch: ifMatch)
        try AdminOutput.printDetail(data, options: options)
    }
}

/// `pinset remove HOST PIN`: removes one pin.
struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove one pin from a host's set.")
    @OptionGroup var options: ServerOptions
    @Argument(help: "The host.") var host: String
    @Argument(help: "The pin, in standard base64 as `pinset pin` prints it.") var pin: String
    @Option(help: "Only write if the host's current ETag is this one (412 otherwise).") var ifMatch: String?
    @Flag(help: "Remove even if the server's pre-flight check refuses (would-lock-out); recorded in the history.")
    var force = false

    func run() async throws {
        guard let bytes = Base64.decode(pin), bytes.count == 32 else {
            throw CLIError("\"\(pin)\" is not a pin: expected standard base64 of 32 bytes")
        }
        let data = try await options.client().send(
            "DELETE", "/admin/hosts/\(host.pathSegment)/pins/\(Base64URL.encode(bytes))\(force ? "?force=true" : "")",
            ifMatch: ifMatch)
        try AdminOutput.printDetail(data, options: options)
    }
}

/// `pinset retire HOST`: publishes an empty set so clients stop pinning the host.
struct RetireCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retire", abstract: "Retire a host: publish an empty set at the next version.")
    @OptionGroup var options: ServerOptions
    @Argument(help: "The host.") var host: String
    @Option(help: "Only write if the host's current ETag is this one (412 otherwise).") var ifMatch: String?

    func run() async throws {
        let data = try await options.client().send("DELETE", "/admin/hosts/\(host.pathSegment)", ifMatch: ifMatch)
        try AdminOutput.printDetail(data, options: options)
    }
}

/// `pinset history HOST`: every version of a host's set.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "Show a host's change history.")
    @OptionGroup var options: ServerOptions
    @Argument(help: "The host.") var host: String

    func run() async throws {
        let data = try await options.client().send("GET", "/admin/hosts/\(host.pathSegment)/history")
        if options.printJSON(data) { return }
        struct History: Decodable { var host: String; var versions: [HistoryEntry] }
        let history = try AdminOutput.decode(History.self, data)
        print("VERSION\tAT\tTOKEN\tCHANGE\tADDED\tREMOVED")
        for entry in history.versions {
            print(
                "\(entry.version)\t\(RFC3339.format(entry.at))\t\(entry.tokenName)\t\(entry.change.rawValue)\t\(entry.added.count)\t\(entry.removed.count)"
            )
        }
    }
}
