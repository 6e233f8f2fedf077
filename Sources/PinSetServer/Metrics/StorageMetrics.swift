import Foundation
import PinSetStorage

/// The storage part of `/metrics`: the WAL's size, failed checkpoints, the faults in force, damaged hosts,
/// descriptors, and the newest document's `issuedAt` (a clock that jumped shows here first).
enum StorageMetrics {
    /// The Prometheus text lines for `store`, `snapshot` and `service`.
    static func render(store: PinDatabase, snapshot: DocumentIndex, service: PinSetService) -> String {
        var out = ""
        func gauge(_ name: String, _ help: String, _ value: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n\(name) \(value)\n"
        }
        gauge("pinset_wal_bytes", "Size of the database's -wal file.", String(store.walBytes))
        let checkpoints = store.checkpoints.withLock { $0 }
        out += "# HELP pinset_wal_checkpoint_failures_total WAL checkpoints that failed.\n"
        out += "# TYPE pinset_wal_checkpoint_failures_total counter\n"
        out += "pinset_wal_checkpoint_failures_total \(checkpoints.failures)\n"
        let problems = Set(store.health.current.map(\.kind))
        out +=
            "# HELP pinset_storage_problem 1 while a storage fault is in force (file_replaced, disk_full, damaged_hosts).\n"
        out += "# TYPE pinset_storage_problem gauge\n"
        for (kind, label) in [
            (StorageProblem.Kind.fileReplaced, "file_replaced"), (.diskFull, "disk_full"),
            (.damagedHosts, "damaged_hosts"),
        ] {
            out += "pinset_storage_problem{kind=\"\(label)\"} \(problems.contains(kind) ? 1 : 0)\n"
        }
        gauge(
            "pinset_damaged_hosts", "Hosts whose stored document failed its hash check, not written since.",
            String(snapshot.damagedCount))
        if let newest = service.newestIssuedAt {
            gauge(
                "pinset_documents_newest_issued_at_seconds", "The largest issuedAt of any stored document (Unix time).",
                String(Int64(newest.timeIntervalSince1970)))
        }
        if let (open, limit) = Descriptors.usage() {
            gauge("pinset_open_descriptors", "File descriptors the process holds.", String(open))
            if limit != Int.max { gauge("pinset_descriptor_limit", "The soft open-file limit.", String(limit)) }
        }
        return out
    }
}
