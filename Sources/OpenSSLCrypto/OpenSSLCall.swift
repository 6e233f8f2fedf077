internal import COpenSSL

/// Helpers that turn OpenSSL return conventions into typed errors, in one place.
enum OpenSSLCall {
    /// The first queued OpenSSL error as text (library reason only, never data), and clears the queue.
    static func drainErrors() -> String {
        var first: String?
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            if first == nil {
                var buffer = [CChar](repeating: 0, count: 256)
                ERR_error_string_n(code, &buffer, buffer.count)
                first = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        return first ?? "no OpenSSL error queued"
    }

    /// Throws `code` with `what` and the OpenSSL reason unless `result` is 1 (OpenSSL's success value).
    static func check(_ result: Int32, _ code: CryptoError.Code = .openSSL, _ what: String) throws(CryptoError) {
        guard result == 1 else { throw CryptoError(code, "\(what) failed: \(drainErrors())") }
    }

    /// Unwraps a pointer OpenSSL returned, or throws `code` with `what` and the OpenSSL reason.
    static func nonNull<P>(_ pointer: P?, _ code: CryptoError.Code = .openSSL, _ what: String) throws(CryptoError) -> P
    {
        guard let pointer else { throw CryptoError(code, "\(what) failed: \(drainErrors())") }
        return pointer
    }

    /// Runs `body` on a read-only memory BIO over `bytes`, freeing it afterwards.
    static func withMemoryBIO<R>(_ bytes: [UInt8], _ body: (OpaquePointer) throws(CryptoError) -> R) throws(CryptoError)
        -> R
    {
        precondition(bytes.count <= Int(Int32.max), "input too large for a memory BIO")
        // BIO_new_mem_buf does not copy: `bytes` must outlive the BIO, which the closure scope guarantees.
        let result: Result<R, CryptoError> = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else {
                return .failure(CryptoError(.openSSL, "BIO_new_mem_buf failed: \(drainErrors())"))
            }
            defer { BIO_free(bio) }
            do throws(CryptoError) { return .success(try body(bio)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Runs `body` with a fresh writable memory BIO and returns everything written to it.
    static func collectingBIO(_ body: (OpaquePointer) throws(CryptoError) -> Void) throws(CryptoError) -> [UInt8] {
        let bio = try nonNull(BIO_new(BIO_s_mem()), .openSSL, "BIO_new")
        defer { BIO_free(bio) }
        try body(bio)
        let pending = Int(BIO_ctrl_pending(bio))
        var out = [UInt8](repeating: 0, count: pending)
        if pending > 0 {
            let read = out.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(pending)) }
            guard read == Int32(pending) else {
                throw CryptoError(.openSSL, "BIO_read returned \(read) of \(pending) bytes")
            }
        }
        return out
    }

    /// The DER encoding produced by an OpenSSL `i2d_*` function.
    static func der(_ what: String, _ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32)
        throws(CryptoError) -> [UInt8]
    {
        let length = encode(nil)
        guard length > 0 else { throw CryptoError(.openSSL, "\(what) failed: \(drainErrors())") }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return encode(&cursor)
        }
        guard written == length else { throw CryptoError(.openSSL, "\(what) wrote \(written) of \(length) bytes") }
        return out
    }
}
