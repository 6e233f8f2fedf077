import PinSetAdminAPI
import PinSetCore
import PinSetProbe

/// One admin write as it moves through ``PinSetService/execute(_:)``: the host normalised once, what the write
/// changes, and its conditions. Built by the router's write routes (``Route/Action/write(_:)``) and by the public
/// write methods (``PinSetService/replace(host:request:ifMatch:tokenName:)`` and the others).
struct WriteCommand: Sendable {
    /// What the write does to the host's set.
    enum Change: Sendable {
        /// `PUT /admin/hosts/{host}`: the whole new set (creates the host if needed).
        case replace(SetRequest)
        /// `POST /admin/hosts/{host}/pins`: pins appended to an existing host.
        case add(PinsRequest)
        /// `DELETE /admin/hosts/{host}/pins/{sha256}`: one pin (standard base64) removed.
        case remove(sha256: String, force: Bool)
        /// `DELETE /admin/hosts/{host}`: the next version has no pins and does not enforce.
        case retire
    }

    /// The host, in the protocol's host form.
    let host: String
    let change: Change
    /// The `If-Match` header, already checked to be well-formed.
    let ifMatch: String?
    /// The token's name, for the history.
    let tokenName: String

    /// The pins the request gives (before `capture` and hashing).
    var inputs: [PinInput] {
        switch change {
        case .replace(let request): request.pins
        case .add(let request): request.pins
        case .remove, .retire: []
        }
    }

    /// The write said `"force": true` (or `?force=true`).
    var force: Bool {
        switch change {
        case .replace(let request): request.force
        case .add(let request): request.force
        case .remove(_, let force): force
        case .retire: false
        }
    }

    /// The host must exist already (everything but `PUT`).
    var mustExist: Bool {
        if case .replace = change { return false }
        return true
    }

    /// Whether the write's host is probed before its transaction (for the pre-flight check or for `capture`):
    /// never for a retirement.
    func probes(_ mode: PreflightMode) -> Bool {
        if case .retire = change { return false }
        return mode != .off || inputs.contains { $0.capture != nil }
    }
}
