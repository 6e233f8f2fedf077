#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether a file was created, deleted or renamed under some names of one folder since the last look, told by one
/// `read` on an inotify descriptor (Linux) instead of a `stat` per name.
///
/// The kernel queues the event inside the `rename`, `unlink` or `open(O_CREAT)` that causes it, so a change that
/// finished before ``arrived()`` is read is seen by it. A full queue, or the folder itself moved, deleted or
/// unmounted, counts as an event: the caller then looks with `stat`. Changes above the folder (a parent renamed, a
/// mount over it) raise no event here; ``DatabaseFiles`` catches those with the `stat` it still makes of the database
/// file's own path.
final class FolderEvents: Sendable {
    private let descriptor: Int32
    private let names: Set<[UInt8]>

    /// Watches `folder` for changes to `names` (file names inside it); `nil` where inotify is not available (no
    /// Linux, or the user's inotify instances are used up).
    init?(folder: String, names: [String]) {
        #if os(Linux)
            let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard descriptor >= 0 else { return nil }
            let mask = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF
            guard inotify_add_watch(descriptor, folder, UInt32(mask)) >= 0 else {
                close(descriptor)
                return nil
            }
            self.descriptor = descriptor
            self.names = Set(names.map { Array($0.utf8) })
        #else
            return nil
        #endif
    }

    deinit { close(descriptor) }

    /// Whether an event about one of the names, or about the folder itself, or a lost event (a full queue) arrived
    /// since the last call; reads the queue empty. `true` when the queue cannot be read.
    func arrived() -> Bool {
        #if os(Linux)
            let header = 16  // struct inotify_event: wd, mask, cookie, len; then len bytes of name
            let folderGone = UInt32(IN_Q_OVERFLOW | IN_IGNORED | IN_UNMOUNT | IN_DELETE_SELF | IN_MOVE_SELF)
            var relevant = false
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno == EAGAIN ? relevant : true
                }
                guard count > 0 else { return true }
                var offset = 0
                while offset + header <= count {
                    let (mask, length) = buffer.withUnsafeBytes { bytes in
                        (
                            bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                            Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                        )
                    }
                    let end = min(offset + header + length, count)
                    let name = buffer[(offset + header)..<end].prefix { $0 != 0 }
                    if mask & folderGone != 0 || names.contains(Array(name)) { relevant = true }
                    offset += header + length
                }
            }
        #else
            return true
        #endif
    }
}
