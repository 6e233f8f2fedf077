package dev.pinset;

/**
 * Why a pin document was refused (PROTOCOL §5). A refused document changes nothing. Compare {@link #code()}: its
 * names are the Swift client's {@code DocumentRejection.Code} raw values ({@link Code#wireName()}).
 */
public final class DocumentRejection extends PinSetRejection {
    private static final long serialVersionUID = 1L;

    /** The rule broken, in the order of PROTOCOL §5. */
    public enum Code implements PinSetRejection.Code {
        /** Step 1: over 64 KiB. */
        TOO_LARGE("tooLarge"),
        /** Step 1: not JSON with the three JWS members, or a signed payload that is not a pin set. */
        MALFORMED_JSON("malformedJSON"),
        /** Step 2: {@code alg} is not {@code EdDSA} or {@code Ed25519}. */
        UNSUPPORTED_ALGORITHM("unsupportedAlgorithm"),
        /** Step 2: {@code typ} is not {@code pinset+jws}. */
        WRONG_TYPE("wrongType"),
        /** Step 2: the {@code kid} names no trusted key. */
        UNKNOWN_KEY("unknownKey"),
        /** Step 3: the signature does not verify. */
        BAD_SIGNATURE("badSignature"),
        /** Step 4: the payload is for another host. */
        HOST_MISMATCH("hostMismatch"),
        /** Step 5: {@code now ≥ expiresAt + skew}. */
        EXPIRED("expired"),
        /** Step 5: {@code now < issuedAt − skew}. */
        NOT_YET_VALID("notYetValid"),
        /** Step 6: older than the version already accepted. */
        ROLLBACK("rollback"),
        /** §6.2 freeze protection: signed by a delegated key while the trust document in force has expired. */
        TRUST_EXPIRED("trustExpired"),
        /**
         * PROTOCOL §7.4 steps 1–2, with a tlog-policy: the proof does not lead to a checkpoint the policy's log signed,
         * or too few witnesses cosigned it ({@link UpdateEvent#logError()} has the {@link LogError} code).
         */
        NOT_LOGGED("notLogged"),
        /** PROTOCOL §7.4 step 3, with a tlog-policy: the proof's checkpoint is inconsistent with the largest before. */
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

    DocumentRejection(Code code, String detail) {
        super(code, detail);
        this.code = code;
    }

    /** The rule broken. */
    @Override
    public Code code() {
        return code;
    }
}
