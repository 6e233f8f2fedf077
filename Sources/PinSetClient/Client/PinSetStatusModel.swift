#if canImport(Combine)
    import Combine
    import Foundation

    /// The status of every host of a ``PinningClient`` for SwiftUI (iOS 16: an `ObservableObject`): version,
    /// freshness, last success and last failure (``PinSetHostStatus``), updated on the main actor after every
    /// event of the client.
    ///
    /// ```swift
    /// @StateObject var status = PinSetStatusModel(client: pinning)
    /// // List(status.hosts, id: \.host) { Text("\($0.host) v\($0.version ?? 0)") }
    /// ```
    ///
    /// - Warning: Apple-only (Combine), reviewed, not built on Linux; the statuses it publishes come from
    ///   ``PinningClient/statuses``, which the Linux tests cover.
    @MainActor
    public final class PinSetStatusModel: ObservableObject {
        /// Every configured host, in configuration order.
        @Published public private(set) var hosts: [PinSetHostStatus]
        private var task: Task<Void, Never>?

        /// Starts following `client`'s events (until the model is released or the client stops).
        public init(client: PinningClient) {
            hosts = client.statuses
            let stream = client.events()
            task = Task { [weak self] in
                for await _ in stream {
                    guard let self else { return }
                    self.hosts = client.statuses
                }
            }
        }

        /// Reads the statuses again (a set may have gone stale with time alone).
        public func refresh(from client: PinningClient) { hosts = client.statuses }

        deinit { task?.cancel() }
    }
#endif
