package dev.pinset;

/**
 * Why a trust document was refused (PROTOCOL §6.2). A refused one changes nothing. The code names are the Swift
 * client's {@code TrustRejection.Code} raw values ({@link Code#wireName()}).
 */
public final class TrustRejection extends PinSetRejection {
    private static final long serialVersionUID = 1L;

    /** The rule broken. */
    public enum Code implements PinSetRejection.Code {
        /** Step 1: over 64 KiB. */
        TOO_LARGE("tooLarge"),
        /** Step 1: not the general serialization, bad base64url, or an invalid payload. */
        MALFORMED("malformed"),
        /** Step 1: a header's {@code alg} is not {@code EdDSA}. */
        UNSUPPORTED_ALGORITHM("unsupportedAlgorithm"),
        /** Step 1: a header's {@code typ} is not {@code pinset-trust+jws}. */
        WRONG_TYPE("wrongType"),
        /** Step 1: a header is not exactly alg, kid and typ as strings. */
        MALFORMED_HEADER("malformedHeader"),
        /** Step 2: too few root keys of the trust in force signed. */
        THRESHOLD_NOT_MET("thresholdNotMet"),
        /** Step 3: too few of its own root keys signed. */
        NEW_ROOTS_DID_NOT_SIGN("newRootsDidNotSign"),
        /** Step 4: not the next version. */
        VERSION_NOT_NEXT("versionNotNext"),
        /** A version lower than, or equal to, the one in force. */
        ROLLBACK("rollback"),
        /** Step 4: more than 1,000 steps in one update. */
        TOO_MANY_STEPS("tooManySteps"),
        /** Step 5: the newest version reached has expired. */
        EXPIRED("expired"),
        /** Step 5: the newest version reached is not yet valid. */
        NOT_YET_VALID("notYetValid"),
        /** The version in force, validly signed, with other bytes: two signed histories. */
        EQUIVOCATION("equivocation"),
        /** With a tlog-policy (PROTOCOL §7.4 steps 1–2): the trust document's proof does not hold. */
        NOT_LOGGED("notLogged"),
        /** With a tlog-policy (PROTOCOL §7.4 step 3): its proof's checkpoint is inconsistent with the largest before. */
        LOG_FORK("logFork");

        private final String wireName;

        Code(String wireName) {
            this.wireName = wireName;
        }

        @Override
        public String wireName() {
            return wireName;
        }
    }

    private final Code code;

    TrustRejection(Code code, String detail) {
        super(code, detail);
        this.code = code;
    }

    /** The rule broken. */
    @Override
    public Code code() {
        return code;
    }
}
