#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value guarded by a pthread mutex: the one lock type of the package.
///
/// It replaces `Synchronization.Mutex`, which Apple ships from iOS 18 / macOS 15 only, while the client must
/// build for iOS 16 / macOS 13; `pthread_mutex_t` exists on every platform the package declares. The mutex and
/// the value sit behind pointers allocated once, never in a stored `var`: a mutex must not move in memory, and
/// accessing the value costs no dynamic exclusivity check (the mutex already guarantees exclusive access).
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    /// Creates a lock guarding `value`.
    public init(_ value: Value) {
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    /// Runs `body` with exclusive access to the value. Do not call `withLock` again from inside `body`: the
    /// mutex is not recursive.
    @inline(__always)
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }
}
