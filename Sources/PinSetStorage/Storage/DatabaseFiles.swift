import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The database's three files (the database, its `-wal` and its `-shm`), identified by device and inode when the
/// store opened them: SQLite keeps its descriptors on those inodes, so a file renamed over, restored by `mv` or
/// deleted under a running server is no longer what SQLite writes to. ``changed()`` costs three `stat` calls.
///
/// A copy over the live file (`cp backup.sqlite pinset.sqlite`) keeps its inode: for that, the server marks the
/// database's header with an identity (``watchContent(identity:)``) and ``changed()`` also reads the header's
/// four bytes back (one `pread` on a descriptor kept open).
package final class DatabaseFiles: Sendable {
    /// The database path; the others are this with `-wal` and `-shm`.
    package let path: String
    /// (suffix, device, inode) of each file that existed when recorded.
    private let identities: [(suffix: String, device: UInt64, inode: UInt64)]

    /// `device:inode` of the database file when recorded (`nil` if it did not exist).
    package let key: String?

    /// The identity the server wrote into the header's `user_version`, whether the file's header carries it yet
    /// (it does after the first checkpoint that copies page 1 into the file), and the descriptor the header is
    /// read through; `nil` when not watched. The descriptor stays open while watched: closing any descriptor of a
    /// file drops every POSIX lock this process holds on it, SQLite's included.
    private let content = Locked<(identity: Int32, armed: Bool, descriptor: Int32)?>(nil)

    /// `PINSET_MEASURE_FILE_WATCH=off`, for bench/filewatch.sh only (never in production: it turns the watch off):
    /// ``changed()`` then reports nothing, so that the watch's cost on writes is measured with one binary.
    static let measurementOnlyWatchOff = getenv("PINSET_MEASURE_FILE_WATCH").map { String(cString: $0) } == "off"

    /// Offset of `user_version` in SQLite's 100-byte header (a big-endian 32-bit integer).
    static let userVersionOffset: off_t = 60

    /// Records the identities of `path`, `path-wal` and `path-shm` as they are now.
    package init(path: String) {
        self.path = path
        identities = ["", "-wal", "-shm"].compactMap { suffix in
            Self.identity(path + suffix).map { (suffix, $0.device, $0.inode) }
        }
        key = Self.key(path)
    }

    /// `device:inode` of `file`, `nil` when it does not exist.
    package static func key(_ file: String) -> String? { identity(file).map { "\($0.device):\($0.inode)" } }

    /// The first file that is no longer the one recorded (deleted, or another inode at its path), with what
    /// happened to it; `nil` while all are the same.
    package func changed() -> (file: String, what: String)? {
        if Self.measurementOnlyWatchOff { return nil }
        for (suffix, device, inode) in identities {
            let file = path + suffix
            guard let now = Self.identity(file) else { return (file, "deleted") }
            if now.device != device || now.inode != inode { return (file, "replaced by another file") }
        }
        return contentChanged() ? (path, "overwritten with other content (a copy over the live file?)") : nil
    }

    /// Watches the database file's header for `identity` from now on: once the file carries it, a header
    /// without it means the file's bytes were replaced in place.
    func watchContent(identity: Int32) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        content.withLock { $0 = (identity, Self.headerIdentity(descriptor) == identity, descriptor) }
    }

    /// Stops watching the header and closes its descriptor: call it only once SQLite's connections are closed.
    func stopWatchingContent() {
        content.withLock { watched in
            if let descriptor = watched?.descriptor { close(descriptor) }
            watched = nil
        }
    }

    /// Whether the watched header lost the identity it carried.
    private func contentChanged() -> Bool {
        content.withLock { watched in
            guard let current = watched else { return false }
            let now = Self.headerIdentity(current.descriptor)
            guard current.armed else {
                if now == current.identity { watched?.armed = true }
                return false
            }
            return now != current.identity
        }
    }

    /// The header's `user_version` as the file holds it (read with `pread`, not through SQLite's page cache);
    /// `nil` when the file is shorter than a header.
    static func headerIdentity(_ descriptor: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 4)
        guard pread(descriptor, &bytes, 4, userVersionOffset) == 4 else { return nil }
        return Int32(bitPattern: bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    }

    /// Whether `suffix`'s file (`-wal`, `-shm`) at the path is still the one recorded.
    func isRecorded(_ suffix: String) -> Bool {
        guard let recorded = identities.first(where: { $0.suffix == suffix }), let now = Self.identity(path + suffix)
        else { return false }
        return now.device == recorded.device && now.inode == recorded.inode
    }

    /// The size of the `-wal` file in bytes (0 when it does not exist).
    package var walBytes: Int {
        var info = stat()
        guard stat(path + "-wal", &info) == 0 else { return 0 }
        return Int(info.st_size)
    }

    /// Device and inode of `file`, `nil` when it does not exist.
    package static func identity(_ file: String) -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard stat(file, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Why another process's open connection to the database at `path` could not be shared safely, `nil` when
    /// SQLite's own locking makes sharing safe (or nobody else has it open).
    ///
    /// In WAL mode every open connection holds a shared POSIX lock on the database file's shared-lock range and
    /// on the `-shm`'s "dead man switch" byte. When some process holds the first but nobody holds the second (the
    /// `-shm` was deleted or replaced under it), or the `-wal` is gone, a new connection would rebuild its own index
    /// of the WAL beside that process's: both would write, and one's commits would be lost.
    ///
    /// A process that is opening the database, or turning a new file to WAL, holds the first lock for a few
    /// milliseconds before its `-wal` and `-shm` exist (`docker run`, then `docker exec ... token create`), so only a
    /// state that lasts 0.5 s is unsafe. The usual answer, nobody else or a safe sharer, costs one look.
    package static func unsafeSharing(path: String) -> String? {
        var problem = sharingProblem(path: path)
        for _ in 0..<10 where problem != nil {
            Thread.sleep(forTimeInterval: 0.05)
            problem = sharingProblem(path: path)
        }
        return problem
    }

    private static func sharingProblem(path: String) -> String? {
        guard let database = lockHolder(path, start: 0x4000_0002, length: 510) else { return nil }
        let owner = "process \(database)"
        guard FileManager.default.fileExists(atPath: path + "-wal") else {
            return "\(owner) has \(path) open, but its -wal file is gone"
        }
        guard lockHolder(path + "-shm", start: 128, length: 1) != nil else {
            return "\(owner) has \(path) open, but its -shm file is gone or was replaced"
        }
        return nil
    }

    /// The pid of a process holding a POSIX lock that would block a write lock on `length` bytes at `start` of
    /// `file`; `nil` when none does (or the file cannot be opened).
    private static func lockHolder(_ file: String, start: Int, length: Int) -> Int32? {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(start)
        lock.l_len = off_t(length)
        guard fcntl(descriptor, F_GETLK, &lock) == 0, lock.l_type != Int16(F_UNLCK) else { return nil }
        return lock.l_pid
    }
}
