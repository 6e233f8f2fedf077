// Alamofire 5 through PinSetClient's pins: copy this file into an app target that depends on Alamofire and
// PinSetClient (Alamofire is not a dependency of pinset). `make check-apple` type-checks it on Linux against
// stand-ins of Alamofire's and Security's declarations (scripts/apple_stubs, scripts/apple_stub_check.py); it has
// not been built against the real Alamofire or run on a device.
//
//     let api = pinning.alamofireSession()
//     api.resource.request("https://api.example.com/v1/me").responseDecodable(of: Me.self) { … }
import Alamofire
import Foundation
import PinSetClient
import Security

/// Routes every host Alamofire connects to, subdomains included, through the pins of a ``PinningClient``: the
/// standard `SecTrust` evaluation, then the set of the host or of the nearest parent that covers it. A host with
/// no set is decided by the client's `PinningOptions` (`unpinnedHosts`, `missingSets`), never waved through by
/// Alamofire's defaults: `allHostsMustBeEvaluated` is `true` and every host gets the same evaluator.
final class PinSetServerTrustManager: ServerTrustManager, @unchecked Sendable {
    private let evaluator: PinSetTrustEvaluator

    /// Creates a manager deciding with `trustManager` (a ``PinningClient``'s `trustManager`).
    init(trustManager: PinTrustManager) {
        evaluator = PinSetTrustEvaluator(evaluator: PinnedServerTrustEvaluator(trustManager: trustManager))
        super.init(allHostsMustBeEvaluated: true, evaluators: [:])
    }

    /// The pinning evaluator, for every host.
    override func serverTrustEvaluator(forHost host: String) throws -> (any ServerTrustEvaluating)? { evaluator }
}

/// Alamofire's evaluator protocol over PinSetClient's `SecTrust` evaluator. Alamofire calls it on its own dispatch
/// queue, where `SecTrustEvaluateWithError` may block (never on a thread of Swift's cooperative pool).
struct PinSetTrustEvaluator: ServerTrustEvaluating {
    let evaluator: PinnedServerTrustEvaluator

    func evaluate(_ trust: SecTrust, forHost host: String) throws { try evaluator.evaluate(trust, forHost: host) }
}

extension PinningClient {
    /// An Alamofire `Session` pinned by this client and replaced after every swap that tightens, so that no resumed
    /// TLS session outlives the set that allowed it. Read `resource` at each use; never keep the session it returns.
    ///
    /// The old `Session` is kept for `grace` seconds (default 60) so that its running requests can finish, then
    /// released: Alamofire's `Session.deinit` fails what is still running (`AFError.sessionDeinitialized`) and
    /// invalidates its `URLSession`. It is not invalidated earlier on purpose: Alamofire creates a request's task
    /// later, on its own queue, and a task created in an invalidated `URLSession` raises an exception.
    func alamofireSession(grace: TimeInterval = 60) -> PinnedResource<Session> {
        let trustManager = trustManager
        return pinnedResource(
            make: { Session(serverTrustManager: PinSetServerTrustManager(trustManager: trustManager)) },
            retire: { old in
                DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + grace) {
                    withExtendedLifetime(old) {}
                }
            })
    }
}
