import CodedErrors

/// Why a trust document was refused (PROTOCOL §6.2 for clients, §6.3 for the server). A refused trust document
/// changes nothing: the trust state in force, and every pin set in force, stay as they are.
///
/// Compare `code`; `description` is `"<code>: <detail>"`, stable enough for a CLI to print.
public typealias TrustRejection = CodedError<TrustRejectionCode>

/// The rule the trust document broke. Raw values are stable (the server answers them as the `rule` of a 422).
public enum TrustRejectionCode: String, ErrorCode, CaseIterable {
    /// Step 1: over 65,535 bytes.
    case tooLarge
    /// Step 1: not JSON in the general serialization, a member that is not base64url, or a payload that is
    /// not a valid trust payload (version < 1, rootThreshold < 1 or above the number of root keys, a key
    /// that is not Ed25519 or whose `kid` is not its thumbprint).
    case malformed
    /// Step 1: a signature header's `alg` is not exactly `EdDSA`.
    case unsupportedAlgorithm
    /// Step 1: a signature header's `typ` is not `pinset-trust+jws`.
    case wrongType
    /// Step 1: a signature header is not exactly `{"alg","kid","typ"}` with string values.
    case malformedHeader
    /// Step 2: fewer than `rootThreshold` distinct root keys of the trust in force made valid signatures.
    case thresholdNotMet
    /// Step 3: fewer than its own `rootThreshold` distinct keys of its own `rootKeys` made valid signatures
    /// (a new root key did not prove it is held).
    case newRootsDidNotSign
    /// Step 4: the version is not exactly the next one.
    case versionNotNext
    /// A version lower than (or, for a different document, equal to) the one in force.
    case rollback
    /// Step 4: the walk would take more than 1,000 steps in one update.
    case tooManySteps
    /// Step 5: the newest version reached has expired (`now ≥ expiresAt + skew`).
    case expired
    /// Step 5: the newest version reached is not yet valid (`now < issuedAt − skew`).
    case notYetValid
    /// §6.2: a validly signed trust document with the version in force but other bytes: someone holding root
    /// keys signed two histories. The client keeps its state and reports both documents
    /// (`UpdateEvent.trustEquivocation`).
    case equivocation
    /// Server (§6.3): `signingKeys` does not list the key the server signs with now.
    case signingKeyNotListed
    /// Client with a tlog-policy (PROTOCOL §7.4 steps 1–2): the trust document's proof is missing or does not
    /// lead to a checkpoint signed by the policy's log and cosigned by its quorum.
    case notLogged
    /// Client with a tlog-policy (PROTOCOL §7.4 step 3): the proof's checkpoint is inconsistent with the largest
    /// one accepted before; the log forked.
    case logFork

    /// `"<code>: <detail>"`.
    public static var describesWithCode: Bool { true }
}
