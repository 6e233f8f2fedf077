import Foundation
import PinSetCore
import PinSetStorage

#if canImport(Glibc)
    import Glibc
#endif

/// `pinset export --watch`: keeps an export directory current with the database.
///
/// Every poll interval it reads SQLite's `data_version` (one pragma on an idle connection: no lock, no
/// transaction), which changes when any other connection commits; on a change it re-exports, rewriting only the
/// files whose bytes changed (temp file + rename), and then runs `--exec` once for the batch. `--exec` also runs
/// once after the first export, even when the directory was already current, so a mirror that missed a sync
/// catches up at start. Every minute it re-exports anyway, as a safety net. A busy or missing database, a server
/// restart or a replaced database file is logged and retried; a failing `--exec` is logged and retried with
/// back-off (1 s doubling up to ``maxExecBackoff``) until it succeeds, with every file changed meanwhile, so a
/// mirror never stays stale until the next write. SIGTERM or SIGINT stops it between two steps.
struct ExportWatcher {
    let databasePath: String
    let out: String
    let exec: String?
    let pollInterval: Double
    /// The log and proofs fetched from the server (`--log-from`), if any.
    var log: ExportLog? = nil
    /// Longest an `--exec` command may run before it is killed (and logged as failed).
    var execTimeout: Double = 600
    /// A full re-export at least this often, whatever `data_version` says.
    var fullExportInterval: Double = 60
    /// The longest wait between two tries of a failing `--exec`.
    var maxExecBackoff: Double = 60

    func run() throws {
        let stop = StopSignal()
        let mirror = MirrorFiles()
        var store: PinDatabase?
        var identity: (dev_t, ino_t)?
        var lastVersion: Int?
        var lastExport = -Double.infinity
        var failing = false
        // Files written since the last `--exec` that succeeded; nil when the mirror is in sync. The first export
        // always leaves a batch pending, so `--exec` runs at start.
        var pending: Set<String>?
        var execFailures = 0
        var nextExecAt = -Double.infinity
        var exported = false
        log("watching \(databasePath), exporting to \(out) (every \(pollInterval) s)")
        while !stop.isStopped {
            do {
                let current = try fileIdentity()
                if store == nil || current.0 != identity?.0 || current.1 != identity?.1 {
                    if store != nil { log("the database file was replaced; reopening it") }
                    store = nil
                    store = try PinDatabase(path: databasePath)
                    identity = current
                    lastVersion = nil
                    mirror.reset()
                }
                let version = try store!.dataVersion()
                let now = ProcessInfo.processInfo.systemUptime
                if version != lastVersion || now - lastExport >= fullExportInterval {
                    let export = try ExportCommand.files(store: store!, out: out, log: log)
                    let hosts = export.hosts
                    let written = try mirror.write(export.files)
                    if let files = export.log { log?.didWrite(files) }
                    // A document held back for its proof: look again at the next poll, whatever data_version says.
                    lastVersion = export.heldBack.isEmpty ? version : nil
                    lastExport = now
                    if failing {
                        log("the database answers again")
                        failing = false
                    }
                    if !written.isEmpty || !exported {
                        let root = URL(fileURLWithPath: out).path
                        let names = written.map { String($0.dropFirst(root.count).drop { $0 == "/" }) }
                        if written.isEmpty {
                            log("exported \(hosts) host(s): already current")
                        } else {
                            log("exported \(hosts) host(s): written \(written.count): \(names.joined(separator: " "))")
                        }
                        pending = (pending ?? []).union(names)
                    }
                    exported = true
                }
                if let exec, let changed = pending, now >= nextExecAt {
                    if runExec(exec, changed: changed.sorted()) {
                        pending = nil
                        execFailures = 0
                    } else {
                        execFailures += 1
                        let delay = min(maxExecBackoff, Double(1 << min(execFailures - 1, 16)))
                        nextExecAt = ProcessInfo.processInfo.systemUptime + delay
                        log("exec: retrying in \(Int(delay)) s with the files changed meanwhile")
                    }
                } else if exec == nil {
                    pending = nil
                }
            } catch {
                if !failing { log("export failed (\(error)); retrying every \(pollInterval) s") }
                failing = true
                // Reopen on the next round: the server may have restarted or the file been replaced.
                store = nil
            }
            if stop.sleep(pollInterval) { break }
        }
        log("stopped")
    }

    /// The database file's device and inode, to notice a file replaced under the watch (a restore).
    private func fileIdentity() throws -> (dev_t, ino_t) {
        var info = stat()
        guard stat(databasePath, &info) == 0 else {
            throw CLIError("no database at \(databasePath): \(String(cString: strerror(errno)))")
        }
        return (info.st_dev, info.st_ino)
    }

    /// Runs `command` with `/bin/sh -c`, with `PINSET_EXPORT_DIR` and `PINSET_EXPORT_CHANGED` (the files written,
    /// relative, space-separated) in its environment; logs its exit status and output. Never throws.
    /// - Returns: whether it exited 0 in time.
    private func runExec(_ command: String, changed: [String]) -> Bool {
        let outcome = ShellCommand(command: command, timeout: execTimeout).run(environment: [
            "PINSET_EXPORT_DIR": out, "PINSET_EXPORT_CHANGED": changed.joined(separator: " "),
        ])
        log("exec: \(outcome.summary)\(outcome.succeeded ? "" : " (failed; the watch goes on)")")
        return outcome.succeeded
    }

    private func log(_ message: String) {
        print("\(RFC3339.format(Date())) export: \(message)")
        fflush(nil)
    }
}
