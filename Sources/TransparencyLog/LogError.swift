import CodedErrors

/// Why a transparency-log artefact (note, checkpoint, proof, policy, tile, request) was refused.
///
/// Compare `code`; `description` is `"<code>: <detail>"`, stable enough for a CLI to print. The detail never
/// holds key material.
public typealias LogError = CodedError<LogErrorCode>

/// What kind of rule was broken. Raw values are stable.
public enum LogErrorCode: String, ErrorCode, CaseIterable {
    /// The text does not follow the C2SP format it claims (note, checkpoint, proof, policy, request, vkey).
    case malformed
    /// A signature from a known key does not verify (C2SP signed-note: the whole note is refused).
    case badSignature
    /// No signature from a trusted key for this origin verified.
    case unsigned
    /// The checkpoint's origin is not one the verifier knows.
    case unknownOrigin
    /// An inclusion proof does not lead to the checkpoint's root.
    case notIncluded
    /// Two checkpoints of one log cannot both be true: the log forked (or a consistency proof is wrong).
    case inconsistent
    /// The witnesses that verified do not meet the policy's quorum.
    case quorumNotMet
    /// A size, index or width outside what the format allows.
    case outOfRange
    /// A hash the proof needs is not available (a tile is missing).
    case missingHash

    /// `"<code>: <detail>"`.
    public static var describesWithCode: Bool { true }
}
