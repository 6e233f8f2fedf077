import ArgumentParser
import Foundation
import PinSetOpenSSL
import TransparencyLog

/// `pinset log watch URL --hosts PATTERN`: a monitor (PROTOCOL §7.5).
struct LogWatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow a transparency log and report every document published for your hosts.",
        discussion: """
            URL is the base under which log/checkpoint and log/tile/... are served: the server, a mirror fed by \
            pinset export, or a local export directory. Every pass checks the checkpoint's log signature, its \
            consistency with the checkpoint held (from the tiles), and each new entry's inclusion, then prints one \
            line per matching entry: INDEX HOST VERSION KID ISSUED-AT. Trust documents (HOST "(trust)", KID the \
            root keys' kids) and entries that are no document ("(unreadable)") are always reported.

            --exec runs CMD with /bin/sh -c for each reported entry, the document on its standard input and \
            PINSET_LOG_EVENT=document, PINSET_LOG_ORIGIN, PINSET_LOG_INDEX, PINSET_LOG_KIND (pins, trust, \
            unreadable), PINSET_LOG_HOST, PINSET_LOG_VERSION, PINSET_LOG_KID and PINSET_LOG_ISSUED_AT in its \
            environment. --webhook POSTs the same fields as JSON, with the document as a string in "document".

            A fork (a checkpoint inconsistent with the one held) prints both signed notes on standard error, runs \
            --exec with PINSET_LOG_EVENT=fork and both notes on standard input (the one held first, a blank line, \
            the new one), POSTs {"event":"fork","origin":…,"held":…,"new":…} to --webhook, and exits with status 3. \
            The state file keeps the held checkpoint (a signed note), so a restart goes on where it stopped; \
            without one, every run starts at the log's first entry.

            A checkpoint smaller than the one held is a stale cache only if its root is the held tree's root at \
            its size (from the tiles); otherwise it is a fork. When the tiles to tell are not to be had, it is \
            warned about and waited for.

            --witness URL (repeatable; and every witness of --policy that names a URL) asks each witness, after every pass, for the newest checkpoint of the log \
            it cosigned (PROTOCOL §7.2, GET URL/<sha256 of the origin>/checkpoint). One signed by the log key \
            that is not a checkpoint of the log followed is a fork, reported as above (the held checkpoint and the \
            witness's): someone holding the log key extended the log elsewhere. A witness checkpoint larger than \
            the log serves is a fork once it stayed larger for --witness-grace seconds.
            """)

    @Argument(help: "Base URL (http(s)://… or a directory) serving log/checkpoint.")
    var url: String
    @Option(
        help: "Hosts to report: api.example.com, *.example.com (names below it) or *; comma-separated, repeatable.")
    var hosts: [String]
    @Option(help: "The log's verifier key (vkey, name+id+key; the name is the log's origin).")
    var logKey: String?
    @Option(help: "A C2SP tlog-policy file instead of --log-key; checkpoints short of its quorum are warned about.")
    var policy: String?
    @Option(help: "A shell command run for each reported entry and for a fork (see below).")
    var exec: String?
    @Option(
        help:
            "A URL each report is POSTed to as JSON. Env PINSET_LOG_WEBHOOK (keeps a URL with credentials out of `ps`)."
    )
    var webhook: String?
    @Option(help: "File keeping the checkpoint reached, read at start and rewritten after each pass.")
    var state: String?
    @Option(help: "Seconds between two passes (0.1 to 3600). Default 1.")
    var interval: Double = 1
    @Flag(help: "One pass, then exit (0, or 3 for a fork).")
    var once = false
    @Option(help: "A witness's URL, whose newest cosigned checkpoint is compared with the log; repeatable.")
    var witness: [String] = []
    @Option(help: "Seconds a witness may hold a checkpoint larger than the log serves before it is a fork. Default 60.")
    var witnessGrace: Double = 60

    func validate() throws {
        guard (logKey == nil) != (policy == nil) else { throw ValidationError("give --log-key or --policy, not both") }
        guard interval >= 0.1, interval <= 3600 else { throw ValidationError("--interval is 0.1 to 3600 seconds") }
        guard witnessGrace >= 0, witnessGrace <= 86_400 else {
            throw ValidationError("--witness-grace is 0 to 86400 seconds")
        }
        for url in witness where !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
            throw ValidationError("--witness \(url) is not an http(s) URL")
        }
    }

    func run() throws {
        let crypto = OpenSSLTrustCrypto()
        let policyText: [UInt8]
        if let logKey {
            policyText = Array("log \(logKey)\nquorum none\n".utf8)
        } else {
            policyText = try LogVerifyCommand.read(policy!)
        }
        let parsed: LogPolicy
        do { parsed = try LogPolicy(parsing: policyText, crypto: crypto) } catch {
            throw CLIError(logKey != nil ? "--log-key: \(error.detail)" : "\(policy!): \(error.detail)")
        }
        var webhookURL: URL? = nil
        if let webhook = webhook ?? Environment.value("PINSET_LOG_WEBHOOK") {
            guard let url = URL(string: webhook), url.scheme == "http" || url.scheme == "https" else {
                throw CLIError("--webhook (or PINSET_LOG_WEBHOOK) is not an http(s) URL")
            }
            webhookURL = url
        }
        let verifier = LogProofVerifier(policy: parsed, crypto: crypto)
        let watcher = LogWatcher(
            source: try LogSource(url), verifier: verifier, patterns: try HostPatterns(hosts),
            hooks: { [exec, webhookURL] origin in LogWatchHooks(origin: origin, exec: exec, webhook: webhookURL) },
            crypto: crypto)
        var held = try readState(verifier)
        // The witnesses asked: --witness, then the policy's witnesses that name a URL.
        var witnesses = witness
        for url in parsed.witnesses.compactMap(\.url)
        where (url.hasPrefix("http://") || url.hasPrefix("https://")) && !witnesses.contains(url) {
            witnesses.append(url)
        }
        let stop = StopSignal()
        var failing = false
        var olderWarned: Int? = nil
        var ahead: [String: Date] = [:]
        while !stop.isStopped {
            do {
                switch try watcher.pass(from: held) {
                case .advanced(let checkpoint):
                    if checkpoint != held { try writeState(checkpoint) }
                    held = checkpoint
                    olderWarned = nil
                case .older(let size, let proven):
                    if olderWarned != size {
                        warn(
                            "\(url) serves a checkpoint of size \(size), older than the \(held?.checkpoint.size ?? 0) held "
                                + (proven
                                    ? "(a stale cache: its root is the held tree's at that size); waiting"
                                    : "(its tiles cannot show whether it is a stale cache or a fork); waiting"))
                    }
                    olderWarned = size
                case .fork(let fork):
                    LogWatchHooks(origin: held?.checkpoint.origin ?? "", exec: exec, webhook: webhookURL).fork(fork)
                    throw ExitCode(3)
                }
                if let held, let fork = askWitnesses(witnesses, watcher, held: held, ahead: &ahead) {
                    warn("a witness holds a checkpoint signed by the log key that is not one of \(url)'s log")
                    LogWatchHooks(origin: held.checkpoint.origin, exec: exec, webhook: webhookURL).fork(fork)
                    throw ExitCode(3)
                }
                if failing { warn("\(url) answers again") }
                failing = false
            } catch let exit as ExitCode {
                throw exit
            } catch {
                if once { throw CLIError("\(error)") }
                if !failing { warn("\(error); retrying every \(interval) s") }
                failing = true
            }
            if once || stop.sleep(interval) { break }
        }
    }

    /// Compares every `--witness`'s checkpoint with `held`; the first fork found, if any. A witness that cannot
    /// be read is warned about (once per failure) and asked again after the next pass.
    private func askWitnesses(
        _ urls: [String], _ watcher: LogWatcher, held: VerifiedCheckpoint, ahead: inout [String: Date]
    ) -> LogFork? {
        for url in urls {
            do {
                switch try watcher.view(of: url, held: held, aheadSince: ahead[url], grace: witnessGrace) {
                case .agrees: ahead[url] = nil
                case .ahead(let since):
                    if ahead[url] == nil {
                        warn("\(url) holds a checkpoint larger than the log serves; a fork if it stays so")
                    }
                    ahead[url] = since
                case .fork(let fork): return fork
                }
            } catch {
                warn("witness \(url): \(error)")
            }
        }
        return nil
    }

    /// The checkpoint held, from the state file (nil: none yet). A state file that does not verify under the
    /// log key is an error: it is never silently replaced.
    private func readState(_ verifier: LogProofVerifier) throws -> VerifiedCheckpoint? {
        guard let state, FileManager.default.fileExists(atPath: state) else { return nil }
        do {
            let note = try SignedNote(parsing: try LogVerifyCommand.read(state))
            return try verifier.signedByLog(note)
        } catch let error as LogError {
            throw CLIError("the state file \(state) is not a checkpoint signed by the log key: \(error)")
        }
    }

    private func writeState(_ checkpoint: VerifiedCheckpoint) throws {
        guard let state else { return }
        try MirrorFiles.writePublic(Data(checkpoint.note.bytes), to: URL(fileURLWithPath: state))
    }
}
