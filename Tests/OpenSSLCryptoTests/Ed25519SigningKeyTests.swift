import Foundation
import Testing

@testable import OpenSSLCrypto

/// RFC 8037 Appendix A.1–A.3: the test key and its thumbprint.
private let rfcSeed = base64URLDecode("nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A")
private let rfcX = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
private let rfcThumbprint = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"

/// A PKCS#8 PEM for a raw Ed25519 seed (RFC 8410 §7 prefix).
private func pkcs8PEM(seed: [UInt8]) -> [UInt8] {
    let der: [UInt8] =
        [0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20] + seed
    return Array("-----BEGIN PRIVATE KEY-----\n\(Data(der).base64EncodedString())\n-----END PRIVATE KEY-----\n".utf8)
}

@Suite struct Ed25519SigningKeyTests {
    @Test func rfc8037TestKeyHasTheRFCPublicKeyAndThumbprint() throws {
        let key = try Ed25519SigningKey(pkcs8PEM: pkcs8PEM(seed: rfcSeed))
        #expect(base64URLEncode(key.publicKey) == rfcX)
        #expect(key.kid == rfcThumbprint)
    }

    @Test func rfc8037A4SignatureIsReproduced() throws {
        let key = try Ed25519SigningKey(pkcs8PEM: pkcs8PEM(seed: rfcSeed))
        let input = Array("eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc".utf8)
        let signature = key.sign(input)
        #expect(
            base64URLEncode(signature)
                == "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg")
        #expect(Ed25519.verify(signature: signature, message: input, publicKey: key.publicKey))
    }

    @Test func signatureVerifiesWithOpenSSLCLI() throws {
        let dir = try Shell.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Shell.run(
            "openssl genpkey -algorithm ed25519 -out key.pem && chmod 600 key.pem && openssl pkey -in key.pem -pubout -out pub.pem",
            in: dir)
        let key = try Ed25519SigningKey.load(pemFile: dir.appendingPathComponent("key.pem").path)
        let message = Array("header.payload signed by Swift".utf8)
        try Shell.write(message, to: dir.appendingPathComponent("data"))
        try Shell.write(key.sign(message), to: dir.appendingPathComponent("sig"))
        #expect(
            try Shell.status("openssl pkeyutl -verify -pubin -inkey pub.pem -rawin -in data -sigfile sig", in: dir) == 0
        )
        try Shell.write(Array("tampered".utf8), to: dir.appendingPathComponent("data"))
        #expect(
            try Shell.status("openssl pkeyutl -verify -pubin -inkey pub.pem -rawin -in data -sigfile sig", in: dir) != 0
        )
    }

    @Test func openSSLCLISignatureVerifiesHere() throws {
        let dir = try Shell.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Shell.run("openssl genpkey -algorithm ed25519 -out key.pem && chmod 600 key.pem", in: dir)
        let message = Array("signed by the openssl CLI".utf8)
        try Shell.write(message, to: dir.appendingPathComponent("data"))
        try Shell.run("openssl pkeyutl -sign -inkey key.pem -rawin -in data -out sig", in: dir)
        let signature = try Shell.read(dir.appendingPathComponent("sig"))
        let publicKey = try Ed25519SigningKey.load(pemFile: dir.appendingPathComponent("key.pem").path).publicKey
        #expect(signature.count == 64)
        #expect(Ed25519.verify(signature: signature, message: message, publicKey: publicKey))
        #expect(!Ed25519.verify(signature: signature, message: message + [0], publicKey: publicKey))
        var flipped = signature
        flipped[10] ^= 1
        #expect(!Ed25519.verify(signature: flipped, message: message, publicKey: publicKey))
        #expect(!Ed25519.verify(signature: Array(signature.prefix(63)), message: message, publicKey: publicKey))
    }

    /// Others may never read the key, and its group may never write it: refused whatever the group.
    @Test(arguments: [0o644, 0o604, 0o660, 0o444, 0o470])
    func otherReadableOrGroupWritableKeyIsRefused(mode: Int) throws {
        let dir = try Shell.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("key.pem").path
        try Shell.run("openssl genpkey -algorithm ed25519 -out key.pem", in: dir)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        let error = #expect(throws: CryptoError.self) { try Ed25519SigningKey.load(pemFile: path) }
        #expect(error?.code == .insecureKeyPermissions)
        #expect(error?.detail.contains("chmod 600 \(path)") == true)
        // The refusal shows the Kubernetes fix (issue 37): a Secret mounted 0440 with the pod's fsGroup.
        #expect(error?.detail.contains("defaultMode: 0440") == true && error?.detail.contains("fsGroup") == true)
        #expect(error?.detail.contains("PRIVATE") == false)
    }

    /// Issue 37: the key as Kubernetes mounts a Secret with `defaultMode: 0440` and `fsGroup` (group-readable, the
    /// group one of this process's) loads; the same mode with a group this process is not in is refused.
    @Test(arguments: [0o640, 0o440])
    func groupReadableKeyLoadsOnlyForTheProcesssOwnGroup(mode: Int) throws {
        let dir = try Shell.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("key.pem").path
        try Shell.run("openssl genpkey -algorithm ed25519 -out key.pem", in: dir)
        try FileManager.default.setAttributes(
            [.posixPermissions: mode, .groupOwnerAccountID: Int(getegid())], ofItemAtPath: path)
        #expect(try Ed25519SigningKey.load(pemFile: path).publicKey.count == 32)

        // A group this process is not in (only root may give a file such a group; others skip this half).
        guard geteuid() == 0 else { return }
        let foreign = (Ed25519SigningKey.processGroups().max() ?? 0) + 4242
        try FileManager.default.setAttributes([.groupOwnerAccountID: Int(foreign)], ofItemAtPath: path)
        let error = #expect(throws: CryptoError.self) { try Ed25519SigningKey.load(pemFile: path) }
        #expect(error?.code == .insecureKeyPermissions)
        #expect(error?.detail.contains("group \(foreign)") == true, "\(error?.detail ?? "")")
        #expect(error?.detail.contains("fsGroup") == true)
    }

    @Test(arguments: [0o600, 0o400])
    func ownerOnlyKeyLoads(mode: Int) throws {
        let dir = try Shell.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("key.pem").path
        try Shell.run("openssl genpkey -algorithm ed25519 -out key.pem", in: dir)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        let key = try Ed25519SigningKey.load(pemFile: path)
        let expected = try Shell.run("openssl pkey -in key.pem -pubout -outform der | tail -c 32", in: dir)
        #expect(key.publicKey == expected)
    }

    @Test func missingFileIsUnreadable() {
        let error = #expect(throws: CryptoError.self) {
            try Ed25519SigningKey.load(pemFile: "/nonexistent/pinset/key.pem")
        }
        #expect(error?.code == .keyFileUnreadable)
    }

    @Test func nonEd25519KeyIsRefused() throws {
        let dir = try Shell.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Shell.run(
            "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out key.pem && chmod 600 key.pem", in: dir)
        let error = #expect(throws: CryptoError.self) {
            try Ed25519SigningKey.load(pemFile: dir.appendingPathComponent("key.pem").path)
        }
        #expect(error?.code == .notAnEd25519Key)
    }

    @Test func garbageIsInvalidPEM() {
        let error = #expect(throws: CryptoError.self) { try Ed25519SigningKey(pkcs8PEM: Array("not a key".utf8)) }
        #expect(error?.code == .invalidPEM)
    }

    @Test func generatedKeyIsWrittenWithMode0600AndNeverOverwritten() throws {
        let dir = try Shell.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("new.pem").path
        let key = try Ed25519SigningKey.generate()
        try key.write(toNewFile: path)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let reloaded = try Ed25519SigningKey.load(pemFile: path)
        #expect(reloaded.publicKey == key.publicKey)
        #expect(reloaded.kid == key.kid)
        let error = #expect(throws: CryptoError.self) { try Ed25519SigningKey.generate().write(toNewFile: path) }
        #expect(error?.code == .fileExists)
        #expect(try Ed25519SigningKey.load(pemFile: path).publicKey == key.publicKey)
        // The openssl CLI reads what we wrote.
        let cliPublic = try Shell.run("openssl pkey -in new.pem -pubout -outform der | tail -c 32", in: dir)
        #expect(cliPublic == key.publicKey)
    }

    @Test func pemRoundTripKeepsTheKey() throws {
        let key = try Ed25519SigningKey.generate()
        let pem = try key.pkcs8PEM()
        #expect(String(decoding: pem, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let again = try Ed25519SigningKey(pkcs8PEM: pem)
        #expect(again.publicKey == key.publicKey)
        let message = Array("m".utf8)
        #expect(Ed25519.verify(signature: again.sign(message), message: message, publicKey: key.publicKey))
        #expect(Ed25519.verify(signature: key.sign([]), message: [], publicKey: key.publicKey))
    }

    @Test func signingIsThreadSafe() async throws {
        let key = try Ed25519SigningKey.generate()
        let ok = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let message = Array("message \(index)".utf8)
                    return Ed25519.verify(signature: key.sign(message), message: message, publicKey: key.publicKey)
                }
            }
            return await group.reduce(true) { $0 && $1 }
        }
        #expect(ok)
    }
}
