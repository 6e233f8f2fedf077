import Foundation
import Locking

#if canImport(Network)
    import Network
#endif

extension PinningClient {
    /// The app's foreground notification, by its documented raw value (no UIKit or AppKit import, and no
    /// main-actor-isolated constant read from here).
    static var foregroundNotification: Notification.Name? {
        #if canImport(UIKit) && !os(watchOS)
            Notification.Name("UIApplicationWillEnterForegroundNotification")
        #elseif canImport(AppKit)
            Notification.Name("NSApplicationWillBecomeActiveNotification")
        #else
            nil
        #endif
    }

    /// Installs the refresh hooks of the platform and returns what undoes them: on Apple platforms a
    /// NotificationCenter observer of the foreground and an `NWPathMonitor`; on Linux nothing (a service calls
    /// ``networkBecameAvailable()`` itself if it wants to).
    func installPlatformHooks() -> [@Sendable () -> Void] {
        var undo: [@Sendable () -> Void] = []
        if let name = Self.foregroundNotification {
            let token = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) {
                [weak self] _ in self?.applicationWillEnterForeground()
            }
            nonisolated(unsafe) let observer = token
            undo.append { NotificationCenter.default.removeObserver(observer) }
        }
        #if canImport(Network)
            let monitor = NWPathMonitor()
            let wasOffline = Locked(false)
            monitor.pathUpdateHandler = { [weak self] path in
                let online = path.status == .satisfied
                let cameBack = wasOffline.withLock { wasOffline in
                    defer { wasOffline = !online }
                    return wasOffline && online
                }
                if cameBack { self?.networkBecameAvailable() }
            }
            monitor.start(queue: DispatchQueue(label: "pinset.path-monitor", qos: .utility))
            nonisolated(unsafe) let running = monitor
            undo.append { running.cancel() }
        #endif
        return undo
    }
}
