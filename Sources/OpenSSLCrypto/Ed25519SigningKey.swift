internal import COpenSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Inside the class, `read`/`write` would name its own methods; these reach the C functions.
private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }

/// An Ed25519 private key held by OpenSSL, used to sign pinset documents.
///
/// Owns its `EVP_PKEY` and frees it in `deinit`. Signing is thread-safe: every call makes its own
/// `EVP_MD_CTX` and the key itself is only read.
///
/// - Warning: Nothing here ever prints or logs key material; keep it that way in callers too.
public final class Ed25519SigningKey: @unchecked Sendable {
    private let key: OpaquePointer
    /// The raw 32-byte public key.
    public let publicKey: [UInt8]
    /// The RFC 7638 JWK thumbprint of the public key: base64url(SHA-256(`{"crv":"Ed25519","kty":"OKP","x":"…"}`)),
    /// the same bytes as `Ed25519JWK.thumbprintInput(publicKey:)` in PinSetCore. Computed once.
    public let kid: String

    private init(taking key: OpaquePointer) throws(CryptoError) {
        guard EVP_PKEY_get_id(key) == EVP_PKEY_ED25519 else {
            EVP_PKEY_free(key)
            throw CryptoError(
                .notAnEd25519Key,
                "the key is not an Ed25519 key: create one with `openssl genpkey -algorithm ed25519 -out key.pem`")
        }
        var raw = [UInt8](repeating: 0, count: 32)
        var length = 32
        guard EVP_PKEY_get_raw_public_key(key, &raw, &length) == 1, length == 32 else {
            EVP_PKEY_free(key)
            throw CryptoError(.openSSL, "EVP_PKEY_get_raw_public_key failed: \(OpenSSLCall.drainErrors())")
        }
        self.key = key
        self.publicKey = raw
        self.kid = Thumbprint.kid(publicKey: raw)
    }

    deinit { EVP_PKEY_free(key) }

    /// Parses a PKCS#8 PEM private key (`-----BEGIN PRIVATE KEY-----`, as `openssl genpkey -algorithm ed25519` writes).
    /// Encrypted keys are refused (no passphrase prompt ever happens).
    public convenience init(pkcs8PEM: [UInt8]) throws(CryptoError) {
        let parsed: OpaquePointer = try OpenSSLCall.withMemoryBIO(pkcs8PEM) { bio throws(CryptoError) in
            // A callback that supplies no passphrase: without it OpenSSL would prompt on the terminal.
            let noPassphrase:
                @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = {
                    _, _, _, _ in 0
                }
            guard let key = PEM_read_bio_PrivateKey(bio, nil, noPassphrase, nil) else {
                _ = OpenSSLCall.drainErrors()
                throw CryptoError(
                    .invalidPEM, "the key is not an unencrypted PEM private key (expected -----BEGIN PRIVATE KEY-----)")
            }
            return key
        }
        try self.init(taking: parsed)
    }

    /// Loads a PKCS#8 PEM Ed25519 private key from `path`.
    ///
    /// Refuses (``CryptoErrorCode/insecureKeyPermissions``) a file that anyone but its owner and this process's
    /// own group can read (``checkMode(_:path:)``): 0600, 0400, and 0640 or 0440 with the file's group one of this
    /// process's (a Kubernetes Secret with `defaultMode: 0440` and `fsGroup`) are accepted; 0644, or 0640 with a
    /// group this process is not in, are not. The mode is checked on the opened file, not the path.
    public static func load(pemFile path: String) throws(CryptoError) -> Ed25519SigningKey {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CryptoError(
                .keyFileUnreadable, "cannot open the signing key file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw CryptoError(
                .keyFileUnreadable, "cannot stat the signing key file \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw CryptoError(.keyFileUnreadable, "the signing key path \(path) is not a regular file")
        }
        try checkMode(info, path: path)
        var contents = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer {
            // Best effort: do not leave key bytes in freed memory.
            for index in contents.indices { contents[index] = 0 }
            for index in chunk.indices { chunk[index] = 0 }
        }
        while true {
            let count = chunk.withUnsafeMutableBytes { posixRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CryptoError(
                    .keyFileUnreadable, "cannot read the signing key file \(path): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            contents.append(contentsOf: chunk[0..<count])
            guard contents.count <= 64 * 1024 else {
                throw CryptoError(
                    .invalidPEM, "the signing key file \(path) is larger than 64 KiB; it is not a PEM key")
            }
        }
        do {
            return try Ed25519SigningKey(pkcs8PEM: contents)
        } catch {
            throw CryptoError(error.code, "\(path): \(error.detail)")
        }
    }

    /// Refuses a key file that others can read, that its group may write or run, or that a group this process is
    /// not in can read: then someone besides this server can read the key. The messages say how to fix it, with a
    /// file and on Kubernetes.
    static func checkMode(_ info: stat, path: String) throws(CryptoError) {
        let mode = info.st_mode & 0o777
        let octal = String(mode, radix: 8)
        let kubernetes =
            "on Kubernetes, mount the Secret with `defaultMode: 0440` and set the pod's `securityContext.fsGroup` to the server's group (deploy/kubernetes/pinset-writer.yaml)"
        guard mode & 0o037 == 0 else {
            throw CryptoError(
                .insecureKeyPermissions,
                "the signing key file \(path) has mode \(octal), \(mode & 0o007 != 0 ? "readable by others" : "writable by its group"); run `chmod 600 \(path)`; \(kubernetes)"
            )
        }
        guard mode & 0o040 == 0 || Self.processGroups().contains(info.st_gid) else {
            throw CryptoError(
                .insecureKeyPermissions,
                "the signing key file \(path) has mode \(octal) and group \(info.st_gid), which this process (groups \(Self.processGroups().map(String.init).joined(separator: ","))) is not in, so others can read it; run `chmod 600 \(path)`, or give it the server's group; \(kubernetes)"
            )
        }
    }

    /// This process's effective group and its supplementary groups (Kubernetes' `fsGroup` is one of these).
    static func processGroups() -> Set<gid_t> {
        var groups = Set([getegid()])
        let count = getgroups(0, nil)
        guard count > 0 else { return groups }
        var list = [gid_t](repeating: 0, count: Int(count))
        let filled = getgroups(count, &list)
        if filled > 0 { groups.formUnion(list.prefix(Int(filled))) }
        return groups
    }

    /// Generates a fresh Ed25519 key with OpenSSL's CSPRNG.
    public static func generate() throws(CryptoError) -> Ed25519SigningKey {
        let context = try OpenSSLCall.nonNull(
            EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nil), .openSSL, "EVP_PKEY_CTX_new_id")
        defer { EVP_PKEY_CTX_free(context) }
        try OpenSSLCall.check(EVP_PKEY_keygen_init(context), .openSSL, "EVP_PKEY_keygen_init")
        var key: OpaquePointer?
        try OpenSSLCall.check(EVP_PKEY_keygen(context, &key), .openSSL, "EVP_PKEY_keygen")
        return try Ed25519SigningKey(taking: OpenSSLCall.nonNull(key, .openSSL, "EVP_PKEY_keygen"))
    }

    /// The private key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    ///
    /// - Warning: These bytes are the secret key. Write them only to a 0600 file (``write(toNewFile:)``).
    public func pkcs8PEM() throws(CryptoError) -> [UInt8] {
        try OpenSSLCall.collectingBIO { bio throws(CryptoError) in
            try OpenSSLCall.check(
                PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil), .openSSL, "PEM_write_bio_PrivateKey")
        }
    }

    /// Writes the key as PKCS#8 PEM to a new file created with mode 0600 (`O_CREAT | O_EXCL`), and fsyncs it.
    /// Refuses to overwrite an existing file (``CryptoErrorCode/fileExists``).
    public func write(toNewFile path: String) throws(CryptoError) {
        var pem = try pkcs8PEM()
        defer { for index in pem.indices { pem[index] = 0 } }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST {
                throw CryptoError(
                    .fileExists,
                    "\(path) already exists; refusing to overwrite a key file (move it away or choose another path)")
            }
            throw CryptoError(.fileUnwritable, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        _ = fchmod(descriptor, 0o600)
        var offset = 0
        while offset < pem.count {
            let written = pem.withUnsafeBytes { posixWrite(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw CryptoError(.fileUnwritable, "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            offset += written
        }
        guard fsync(descriptor) == 0 else {
            throw CryptoError(.fileUnwritable, "cannot fsync \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Signs `message` with pure Ed25519 (RFC 8032; `EVP_DigestSign` with no digest). Returns 64 bytes.
    /// Thread-safe. Traps only if OpenSSL cannot allocate a context.
    public func sign(_ message: [UInt8]) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        precondition(
            EVP_DigestSignInit(context, nil, nil, nil, key) == 1,
            "EVP_DigestSignInit failed: \(OpenSSLCall.drainErrors())")
        var signature = [UInt8](repeating: 0, count: 64)
        var length = 64
        let empty: [UInt8] = [0]
        let ok = signature.withUnsafeMutableBufferPointer { sig in
            message.isEmpty
                ? empty.withUnsafeBufferPointer { EVP_DigestSign(context, sig.baseAddress, &length, $0.baseAddress, 0) }
                : message.withUnsafeBufferPointer {
                    EVP_DigestSign(context, sig.baseAddress, &length, $0.baseAddress, $0.count)
                }
        }
        precondition(ok == 1 && length == 64, "EVP_DigestSign failed: \(OpenSSLCall.drainErrors())")
        return signature
    }
}
