import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The database, its WAL and SHM, and backups hold token names and hashes, reports and history: they are made
/// readable by their owner only (files 0600, a directory the server creates 0700), whatever the umask (issue 40).
/// SQLite gives the WAL and SHM files the mode of the database file, so a 0600 database keeps them private.
package enum PrivateFiles {
    /// Creates `directory` (and its parents) when missing; the directory itself gets mode 0700. A directory that
    /// exists already is left as it is (it may be the working directory).
    package static func createDirectory(_ directory: String) throws {
        guard !FileManager.default.fileExists(atPath: directory) else { return }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o700)
    }

    /// Creates the SQLite file at `path` empty with mode 0600 when it is missing, and sets mode 0600 on it and on
    /// its `-wal`, `-shm` and `-journal` files when they exist (databases made before this rule).
    package static func protectDatabase(_ path: String) {
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if fd >= 0 { close(fd) }
        for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: path + suffix) {
            chmod(path + suffix, 0o600)
        }
    }
}
