import PinSetAdminAPI
import PinSetCore
import PinSetStorage

/// What the probe of a write's host found, taken before the write's transaction.
struct PreflightProbe: Sendable {
    /// Every address probed.
    let addresses: [AddressProbe]
    /// The write said `"force": true`.
    let force: Bool
    /// The pre-flight check runs (`false` when the host was probed only for `capture`).
    let checks: Bool

    /// `inputs` with each `"capture": "leaf"` replaced by the hash of the leaf the host serves now: its key
    /// (type `spki`) or the whole certificate (type `certificate`). 400 for an unknown capture value or one
    /// given with `sha256` or `certificate`; 422 `capture-failed` when no address served a chain, or the
    /// addresses serve different leaves.
    func capturing(_ inputs: [PinInput]) throws(ServiceError) -> [PinInput] {
        var result = inputs
        for (index, input) in inputs.enumerated() {
            guard let capture = input.capture else { continue }
            guard capture == "leaf" else {
                throw ServiceError(
                    .badRequest, "pins[\(index)].capture must be \"leaf\", not \"\(capture.prefix(40))\"")
            }
            guard input.sha256 == nil, input.certificate == nil else {
                throw ServiceError(
                    .badRequest, "pins[\(index)] gives \"capture\" with \"sha256\" or \"certificate\"; give exactly one"
                )
            }
            let leaves = addresses.compactMap { $0.served.first }
            guard !leaves.isEmpty else {
                let reasons = addresses.compactMap { $0.error }.joined(separator: "; ")
                throw ServiceError(
                    PinSetError(.captureFailed, "pins[\(index)].capture: no address served a chain (\(reasons))"))
            }
            let hashes = Set(leaves.map { input.type == .certificate ? $0.certificate : $0.spki })
            guard hashes.count == 1, let hash = hashes.first else {
                throw ServiceError(
                    PinSetError(
                        .captureFailed,
                        "pins[\(index)].capture: the addresses of the host serve \(hashes.count) different leaves; pin each with \"sha256\""
                    ))
            }
            result[index].capture = nil
            result[index].sha256 = hash
        }
        return result
    }
}
