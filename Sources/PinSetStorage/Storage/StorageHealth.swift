import CodedErrors
import Locking

/// A storage fault the server is living with, in words an operator can act on: `"<kind>: <detail>"`; the detail
/// names files and hosts, never secrets.
package typealias StorageProblem = CodedError<StorageProblemKind>

/// The kind of storage fault; tests and probes compare it, not the message.
package enum StorageProblemKind: String, ErrorCode {
    /// The database file, its `-wal` or its `-shm` was replaced or deleted under the server: writes are refused
    /// (`503 storage-replaced`) until it restarts.
    case fileReplaced
    /// The disk is full: writes are refused (`503 storage-full`) until space is freed (the next write that
    /// commits clears it).
    case diskFull
    /// Some hosts' stored documents do not match their stored hashes (started with `--serve-damaged`): those
    /// hosts answer `503 document-damaged` until they are written again.
    case damagedHosts

    /// `"<kind>: <detail>"`.
    package static var describesWithCode: Bool { true }
}

extension CodedError where CodeType == StorageProblemKind {
    /// The kind of fault (``StorageProblemKind``).
    package typealias Kind = StorageProblemKind
    /// The kind of fault: the problem's `code`.
    package var kind: Kind { code }
}

/// The storage faults in force, for probes (`/readyz`) and `/metrics`: empty while the database is sound.
///
/// A replaced file stays until the process ends (the server cannot get the old file back); a full disk clears
/// when a write commits again; damaged hosts clear when the last of them is written again.
package final class StorageHealth: Sendable {
    private let problems = Locked<[StorageProblem.Kind: StorageProblem]>([:])

    /// A healthy state.
    package init() {}

    /// The faults in force, the most serious first (replaced file, full disk, damaged hosts); empty when sound.
    package var current: [StorageProblem] {
        let all = problems.withLock { $0 }
        return [StorageProblem.Kind.fileReplaced, .diskFull, .damagedHosts].compactMap { all[$0] }
    }

    /// The most serious fault in force, `nil` when the storage is sound: what `/readyz` answers `503` with.
    package var problem: StorageProblem? { current.first }

    /// Whether writes are refused now (a replaced file or a full disk).
    package var refusesWrites: Bool { problems.withLock { $0[.fileReplaced] != nil || $0[.diskFull] != nil } }

    /// Records `problem`; returns `true` when its kind was not in force before (log it then, once).
    @discardableResult
    package func report(_ problem: StorageProblem) -> Bool {
        problems.withLock { all in
            defer { all[problem.kind] = problem }
            return all[problem.kind] == nil
        }
    }

    /// Clears the fault of `kind`; returns `true` when it was in force.
    @discardableResult
    package func clear(_ kind: StorageProblem.Kind) -> Bool {
        problems.withLock { $0.removeValue(forKey: kind) != nil }
    }
}
