import Foundation

extension PinningClient {
    /// Makes a ``PinnedResource`` the client replaces after every swap that tightens: for an Alamofire `Session`,
    /// an image loader's session, anything that keeps TLS sessions or pooled connections.
    ///
    /// ```swift
    /// let images = pinning.pinnedResource(
    ///     make: { URLSession(configuration: .default, delegate: pinning.taskDelegate, delegateQueue: nil) },
    ///     retire: { $0.finishTasksAndInvalidate() })
    /// // at each use: images.resource
    /// ```
    /// - Parameters:
    ///   - make: creates a resource (called now, and after each swap that tightens).
    ///   - retire: retires a replaced one (`finishTasksAndInvalidate()` for a `URLSession`).
    public func pinnedResource<Resource>(
        make: @escaping @Sendable () -> Resource, retire: @escaping @Sendable (Resource) -> Void
    ) -> PinnedResource<Resource> {
        let resource = PinnedResource(make: make, retire: retire)
        let token = onSetsTightened { [weak resource] _ in resource?.rotate() }
        resource.onClose.withLock { $0 = { [weak self] in self?.removeHandler(token) } }
        return resource
    }

    /// Calls `action` after every swap that tightens (``SetSwap/tightens``), on the thread that installed the
    /// set: the hook to drop any other TLS state of the app. Returns a token for ``removeHandler(_:)``.
    @discardableResult
    public func onSetsTightened(_ action: @escaping @Sendable (SetSwap) -> Void) -> UInt64 {
        state.withLock { state in
            state.nextRotation += 1
            state.rotations[state.nextRotation] = action
            return state.nextRotation
        }
    }

    /// Removes a handler added with ``onSetsTightened(_:)``.
    public func removeHandler(_ token: UInt64) {
        state.withLock { _ = $0.rotations.removeValue(forKey: token) }
    }
}
