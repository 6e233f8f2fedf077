import Foundation
import PinSetCore
import TransparencyLog

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where `pinset log watch` reports: standard output always, and optionally a command (`--exec`) and a webhook
/// (`--webhook`). A hook that fails is logged on standard error and the watch goes on.
struct LogWatchHooks {
    let origin: String
    let exec: ShellCommand?
    let webhook: URL?
    private let session: URLSession

    init(origin: String, exec: String?, webhook: URL?) {
        self.origin = origin
        self.exec = exec.map { ShellCommand(command: $0, timeout: 60) }
        self.webhook = webhook
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        session = URLSession(configuration: configuration)
    }

    /// Reports one matching entry: its line on standard output; the document on the command's standard input
    /// with `PINSET_LOG_*` variables; a JSON `{"event":"document",…}` to the webhook.
    func document(_ summary: LogEntrySummary, entry: [UInt8]) {
        print(summary.line)
        fflush(nil)
        let fields: [String: String] = [
            "event": "document", "origin": origin, "index": String(summary.index), "kind": summary.kind.rawValue,
            "host": summary.host, "version": String(summary.version), "kid": summary.kid,
            "issuedAt": summary.issuedAt,
        ]
        run(fields, input: entry)
        var json: [String: Any] = fields
        json["index"] = summary.index
        json["version"] = summary.version
        json["document"] = String(decoding: entry, as: UTF8.self)
        post(json)
    }

    /// Reports a fork: both signed notes on standard error; the command gets them on standard input (the one
    /// held first, a blank line, the new one) with `PINSET_LOG_EVENT=fork`; the webhook `{"event":"fork",…}`.
    func fork(_ fork: LogFork) {
        let held = String(decoding: fork.kept.bytes, as: UTF8.self)
        let refused = String(decoding: fork.refused.bytes, as: UTF8.self)
        FileHandle.standardError.write(
            Data(
                ("FORK: the log \(origin) signed two checkpoints that are inconsistent with each other.\n"
                    + "The checkpoint held:\n\(held)\nThe new checkpoint:\n\(refused)").utf8))
        run(["event": "fork", "origin": origin], input: Array((held + "\n" + refused).utf8))
        post(["event": "fork", "origin": origin, "held": held, "new": refused])
    }

    private func run(_ fields: [String: String], input: [UInt8]) {
        guard let exec else { return }
        var environment: [String: String] = [:]
        for (key, value) in fields {
            environment["PINSET_LOG_" + Self.snake(key)] = value
        }
        let outcome = exec.run(environment: environment, input: input)
        if !outcome.succeeded { warn("exec failed: \(outcome.summary)") }
    }

    private func post(_ json: [String: Any]) {
        guard let webhook else { return }
        var request = URLRequest(url: webhook)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
        let (_, response, error) = LogSource.perform(request, session: session)
        // Only the host is named: a webhook URL often carries a secret in its path or query.
        let name = "webhook \(webhook.scheme ?? "http")://\(webhook.host ?? "?")/…"
        if let error {
            warn("\(name) failed: \(error.localizedDescription)")
        } else if let status = response?.statusCode, !(200..<300).contains(status) {
            warn("\(name) answered \(status)")
        }
    }

    /// `issuedAt` → `ISSUED_AT`.
    private static func snake(_ key: String) -> String {
        key.reduce(into: "") { out, character in
            if character.isUppercase { out += "_" }
            out += character.uppercased()
        }
    }
}

/// A line on standard error, prefixed with the time.
func warn(_ message: String) {
    FileHandle.standardError.write(Data("\(RFC3339.format(Date())) log watch: \(message)\n".utf8))
}
