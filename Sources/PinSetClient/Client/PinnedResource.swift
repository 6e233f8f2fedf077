import Locking

/// A resource holding TLS state (a `URLSession`, an Alamofire `Session`, an image loader's session) that a
/// ``PinningClient`` replaces after every swap that tightens (``SetSwap/tightens``): ``rotate()`` makes a new one
/// and retires the old one, so nothing the old one cached (a TLS session to resume, a pooled connection)
/// outlives the set that allowed it. Make one with ``PinningClient/pinnedResource(make:retire:)`` and read
/// ``resource`` at each use, never keep what it returned.
///
/// Thread-safe; `make` and `retire` run on the thread that installed the new set (keep them quick: create a
/// session, call `finishTasksAndInvalidate()`).
public final class PinnedResource<Resource>: @unchecked Sendable {
    private let current: Locked<(resource: Resource, generation: Int, closed: Bool)>
    private let make: @Sendable () -> Resource
    private let retire: @Sendable (Resource) -> Void
    /// Called once by ``close()`` (the client forgets the resource).
    let onClose = Locked<(@Sendable () -> Void)?>(nil)

    /// Makes the first resource at once. Prefer ``PinningClient/pinnedResource(make:retire:)``, which also
    /// rotates it.
    public init(make: @escaping @Sendable () -> Resource, retire: @escaping @Sendable (Resource) -> Void) {
        self.make = make
        self.retire = retire
        current = Locked((make(), 0, false))
    }

    /// The resource to use now.
    public var resource: Resource { current.withLock { $0.resource } }

    /// Runs `body` with the resource in force, under the lock that ``rotate()`` takes to replace it: what `body`
    /// starts on it (a task) starts before that resource is retired, never on a retired one (a `URLSession` raises
    /// an exception for a task created after `finishTasksAndInvalidate()`). Keep `body` short, and do not rotate
    /// or close this resource from it.
    public func withResource<R>(_ body: (Resource) throws -> R) rethrows -> R {
        try current.withLock { try body($0.resource) }
    }

    /// How many times it was replaced.
    public var generation: Int { current.withLock { $0.generation } }

    /// Replaces the resource with a new one and retires the old one (outside the lock). Does nothing once
    /// ``close()`` ran.
    public func rotate() {
        let fresh = make()
        let old: Resource? = current.withLock { state in
            guard !state.closed else { return nil }
            defer {
                state.resource = fresh
                state.generation += 1
            }
            return state.resource
        }
        if let old { retire(old) } else { retire(fresh) }
    }

    /// Retires the resource for good; later ``rotate()`` calls do nothing. The client stops rotating it.
    public func close() {
        let old: Resource? = current.withLock { state in
            guard !state.closed else { return nil }
            state.closed = true
            return state.resource
        }
        if let old {
            retire(old)
            onClose.withLock { $0 }?()
        }
    }
}
