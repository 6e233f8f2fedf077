import Foundation

/// The transparency log of `pinset serve` (PROTOCOL §7; `--log-key`, `--log-origin`, `--witness`). Without one
/// (``PinSetServerConfiguration/log`` `nil`) the server logs nothing and serves no proofs.
package struct LogConfiguration: Sendable {
    /// The log key: an Ed25519 PKCS#8 PEM file, mode 0600 (not the document signing key).
    package var keyPath: String
    /// The checkpoint origin line and the log key's name, e.g. `pins.example.com/log`. It names the log for
    /// ever: clients' policies and witnesses know the log by it.
    package var origin: String
    /// The witnesses asked to cosign every checkpoint. Default none.
    package var witnesses: [WitnessEndpoint]
    /// Seconds a witness round waits for answers. Default 5.
    package var witnessDeadline: TimeInterval
    /// Seconds between rounds while some witness has not cosigned the latest checkpoint. Default 10.
    package var witnessRetryInterval: TimeInterval
    /// Creates a configuration; every parameter but the key and origin has the default documented on its
    /// property.
    package init(
        keyPath: String, origin: String, witnesses: [WitnessEndpoint] = [], witnessDeadline: TimeInterval = 5,
        witnessRetryInterval: TimeInterval = 10
    ) {
        self.keyPath = keyPath
        self.origin = origin
        self.witnesses = witnesses
        self.witnessDeadline = witnessDeadline
        self.witnessRetryInterval = witnessRetryInterval
    }

    /// The origin used when none is given: `pinset/log`. Give a name of your own (`--log-origin`), e.g. the
    /// server's public host + `/log`: an origin is meant to be unique in the world.
    package static let defaultOrigin = "pinset/log"
}
