import Foundation

/// A SoftHSM 2 installation of one test: its own configuration file and token folder in a temporary directory,
/// so tests never share tokens. Debian's `softhsm2` and `opensc` (`pkcs11-tool`) must be installed (`make test`
/// does it, through hsm.mk).
struct SoftHSM {
    static let module = "/usr/lib/softhsm/libsofthsm2.so"
    /// Holds `softhsm2.conf`, `tokens/` and the PIN files.
    let directory: URL
    var tokenDirectory: URL { directory.appendingPathComponent("tokens") }
    /// `SOFTHSM2_CONF` and `PINSET_PKCS11_MODULE` for every process of the test.
    var environment: [String: String] {
        ["SOFTHSM2_CONF": directory.appendingPathComponent("softhsm2.conf").path, "PINSET_PKCS11_MODULE": Self.module]
    }

    init() throws {
        directory = try CLIRunner.temporaryDirectory()
        try FileManager.default.createDirectory(at: tokenDirectory, withIntermediateDirectories: true)
        let configuration = """
            directories.tokendir = \(tokenDirectory.path)
            objectstore.backend = file
            log.level = ERROR

            """
        try configuration.write(
            to: directory.appendingPathComponent("softhsm2.conf"), atomically: true, encoding: .utf8)
    }

    /// Initialises a token labelled `label` with user PIN `pin`; returns the path of a PIN file (mode 0600) for
    /// `pin-source=file:`.
    @discardableResult
    func initToken(_ label: String, pin: String) throws -> String {
        try run("softhsm2-util", ["--init-token", "--free", "--label", label, "--so-pin", "87654321", "--pin", pin])
        let file = directory.appendingPathComponent("\(label).pin")
        try "\(pin)\n".write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        return file.path
    }

    /// Runs `pkcs11-tool` on this installation's module; returns standard output.
    @discardableResult
    func pkcs11Tool(_ arguments: [String]) throws -> String {
        try run("pkcs11-tool", ["--module", Self.module] + arguments)
    }

    /// The public key of `label` on `token` as SPKI PEM, read off the token by `pkcs11-tool --read-object`.
    func publicKeyPEM(token: String, label: String) throws -> String {
        let file = directory.appendingPathComponent("\(token)-\(label).pub")
        try pkcs11Tool([
            "--token-label", token, "--read-object", "--type", "pubkey", "--label", label, "--output-file", file.path,
        ])
        return try String(contentsOf: file, encoding: .utf8)
    }

    /// Runs a tool with this installation's environment; throws when it fails.
    @discardableResult
    func run(_ tool: String, _ arguments: [String]) throws -> String {
        let result = try CLIRunner.run(tool, arguments, environment: environment)
        guard result.status == 0 else {
            throw ShellError(command: ([tool] + arguments).joined(separator: " "), stderr: result.stderr)
        }
        return result.stdout
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}
