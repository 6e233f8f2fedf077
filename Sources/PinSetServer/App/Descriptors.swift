import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's file descriptors: each connection holds one, and the server holds its own (the database's three
/// files per SQLite connection, the listening socket, epoll, logs).
enum Descriptors {
    /// Descriptors the server holds besides its connections, counted generously.
    static let serverOwn = 64

    /// Raises the soft `RLIMIT_NOFILE` to the hard limit (logged), then warns when `connectionLimit` plus the
    /// server's own descriptors exceeds it: connections past it would never be answered.
    static func raiseAndCheck(connectionLimit: Int, logger: Logger) {
        var limit = rlimit()
        guard getrlimit(resourceNOFILE, &limit) == 0 else { return }
        if limit.rlim_cur < limit.rlim_max {
            let before = limit.rlim_cur
            limit.rlim_cur = limit.rlim_max
            if setrlimit(resourceNOFILE, &limit) == 0 {
                logger.info(
                    "raised the open-file limit to the hard limit",
                    metadata: ["from": "\(before)", "to": "\(limit.rlim_max)"])
            } else {
                limit.rlim_cur = before
            }
        }
        let needed = connectionLimit + serverOwn
        if UInt64(limit.rlim_cur) < UInt64(needed) {
            logger.warning(
                "--connection-limit plus the server's own files exceeds the open-file limit: connections past it are never answered; raise the hard limit (ulimit -Hn, systemd LimitNOFILE, docker --ulimit nofile) or lower --connection-limit",
                metadata: [
                    "connectionLimit": "\(connectionLimit)", "serverOwn": "\(serverOwn)", "limit": "\(limit.rlim_cur)",
                ])
        }
    }

    /// (descriptors open now, soft limit), `nil` where `/proc/self/fd` cannot be read.
    static func usage() -> (open: Int, limit: Int)? {
        var limit = rlimit()
        guard getrlimit(resourceNOFILE, &limit) == 0,
            let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        else { return nil }
        let soft = limit.rlim_cur == rlim_t.max ? Int.max : Int(clamping: limit.rlim_cur)
        return (entries.count, soft)
    }

    #if os(Linux)
        private static let resourceNOFILE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resourceNOFILE = RLIMIT_NOFILE
    #endif
}
