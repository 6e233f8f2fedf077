import Foundation
import Locking
import PinSetAdminAPI
import PinSetLogServer

/// Whether the server should receive traffic now (`GET /readyz`), as a list of named conditions, apart from
/// whether it is alive (`GET /healthz`).
///
/// Each subsystem adds its own condition with ``add(_:_:)``: the read index (`index`), the signing key (`signer`),
/// the transparency log's publisher (`log`); `draining`, always checked last, fails from ``startDraining()`` on
/// (SIGTERM). A new subsystem (storage faults, an admin listener) adds one line where it is made; nothing else
/// changes. ``notReady()`` runs every check, in the order they were added.
///
/// Checks run on an HTTP worker thread for every `/readyz`: they must be quick and must not block (a check that
/// needs slow work caches its result, like ``SignerCheck``). Their reasons go to the client: never a secret.
package final class Readiness: Sendable {
    /// A named condition that does not hold (e.g. `signer`), and why, for an operator: never a secret. The same
    /// value `/readyz`'s 503 lists.
    package typealias Failure = NotReadyCondition

    /// A check: `nil` while its condition holds, else why not.
    package typealias Check = @Sendable () -> String?

    private struct State {
        var conditions: [(name: String, check: Check)] = []
        /// When draining started (monotonic seconds), `nil` while serving.
        var drainingSince: Double?
        /// Whether anyone asked `/readyz` since start-up.
        var asked = false
    }

    private let state = Locked(State())

    /// A list that holds only `draining` (checked last).
    package init() {}

    /// Adds a condition named `name` (lower case, one word: it is shown to operators and matched by tools).
    /// Conditions with the same name are all kept and all checked.
    package func add(_ name: String, _ check: @escaping Check) {
        state.withLock { $0.conditions.append((name, check)) }
    }

    /// The names of the conditions, in order.
    package var names: [String] { state.withLock { $0.conditions.map(\.name) } + ["draining"] }

    /// The conditions that do not hold, in order (`draining` last); empty when the server is ready.
    package func notReady() -> [Failure] {
        let (conditions, draining) = state.withLock { state in
            state.asked = true
            return (state.conditions, state.drainingSince != nil)
        }
        var failures = conditions.compactMap { condition in
            condition.check().map { Failure(name: condition.name, detail: $0) }
        }
        if draining {
            failures.append(
                Failure(
                    name: "draining",
                    detail: "the server is stopping (SIGTERM); it still answers until its drain period ends"))
        }
        return failures
    }

    /// Turns `draining` on, for good: `/readyz` answers `503` from now on while the server keeps answering.
    package func startDraining() {
        state.withLock { state in
            if state.drainingSince == nil { state.drainingSince = Self.now() }
        }
    }

    /// Whether ``startDraining()`` was called.
    package var isDraining: Bool { state.withLock { $0.drainingSince != nil } }

    /// Whether anyone asked for readiness (``notReady()``) since start-up: a load balancer or orchestrator that
    /// routes by it, which a drain period gives time to notice.
    package var wasAsked: Bool { state.withLock { $0.asked } }

    static func now() -> Double { MonotonicClock.now() }
}
