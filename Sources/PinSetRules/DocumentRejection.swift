import CodedErrors

/// Why a document was refused (PROTOCOL §5). A refused document changes nothing.
///
/// Compare `code`; `description` is `"<code>: <detail>"`, stable enough for a CLI to print.
public typealias DocumentRejection = CodedError<DocumentRejectionCode>

/// The rule of PROTOCOL §5 the document broke. Raw values are stable.
public enum DocumentRejectionCode: String, ErrorCode, CaseIterable {
    /// Step 1: the body is over 65,535 bytes.
    case tooLarge
    /// Step 1 (or a signed payload that is not a pin set): not JSON, or not the three JWS members.
    case malformedJSON
    /// Step 2: the header's `alg` is not exactly `EdDSA`.
    case unsupportedAlgorithm
    /// Step 2: the header's `typ` is not `pinset+jws`.
    case wrongType
    /// Step 2: the header's `kid` names no trusted key.
    case unknownKey
    /// Step 3: the Ed25519 signature does not verify.
    case badSignature
    /// Step 4: the payload is for another host.
    case hostMismatch
    /// Step 5: `now ≥ expiresAt + skew`.
    case expired
    /// Step 5: `now < issuedAt − skew`.
    case notYetValid
    /// Step 6: older than the version already accepted.
    case rollback
    /// Step 2 with root keys (PROTOCOL §6.2, freeze protection): the `kid` is a delegated signing key and the
    /// trust document in force has expired; no new document signed by a delegated key is accepted.
    case trustExpired
    /// PROTOCOL §7.4 steps 1–2, with a tlog-policy: no proof, a proof that does not lead to a checkpoint the
    /// policy's log signed, or too few witness cosignatures.
    case notLogged
    /// PROTOCOL §7.4 step 3, with a tlog-policy: the proof's checkpoint is inconsistent with the largest one
    /// accepted before; the log forked (both notes go to the application and the report URI).
    case logFork

    /// `"<code>: <detail>"`.
    public static var describesWithCode: Bool { true }
}
