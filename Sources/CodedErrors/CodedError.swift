/// The codes of one module's failures: an enum whose raw values are stable strings (tests, logs and, for the
/// protocol's rejections, the wire compare them).
///
/// Each module names its codes once (`enum CryptoErrorCode: String, ErrorCode { … }`) and its error type is
/// ``CodedError`` over them (`typealias CryptoError = CodedError<CryptoErrorCode>`), as GRDB's `DatabaseError`
/// pairs one struct with its `ResultCode`.
public protocol ErrorCode: RawRepresentable, Hashable, Sendable where RawValue == String {
    /// Whether ``CodedError/description`` starts with the code: `"<code>: <detail>"` (`true`, for rejections a
    /// CLI prints as they are) or the detail alone (`false`, the default, for messages that already say it all).
    static var describesWithCode: Bool { get }
}

extension ErrorCode {
    /// The detail alone.
    public static var describesWithCode: Bool { false }
}

/// A failure with a stable ``code`` and a ``detail`` for people: the one error shape of the package.
///
/// Compare ``code``, never the message. The detail says what went wrong and what to do; it never holds a
/// secret (a token, a private key, a PIN).
public struct CodedError<CodeType: ErrorCode>: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure: the module's code enum.
    public typealias Code = CodeType

    /// The kind of failure.
    public let code: Code
    /// What went wrong and what to do, for logs, the CLI and a problem's `detail`. Never contains a secret.
    public let detail: String

    /// Creates an error of kind `code`; `detail` must name no secret.
    @inlinable
    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// `"<code>: <detail>"` when the code says so (``ErrorCode/describesWithCode``), else the detail alone.
    public var description: String { Code.describesWithCode ? "\(code.rawValue): \(detail)" : detail }
}
