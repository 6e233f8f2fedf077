package dev.pinset;

/**
 * Why a transparency-log artefact (note, checkpoint, proof, policy, tile) was refused (PROTOCOL §7). Compare
 * {@link #code()}: its names are the Swift {@code LogError.Code} raw values ({@link Code#wireName()}).
 */
public final class LogError extends PinSetRejection {
    private static final long serialVersionUID = 1L;

    /** What kind of rule was broken. */
    public enum Code implements PinSetRejection.Code {
        /** The text does not follow the C2SP format it claims (note, checkpoint, proof, policy, vkey). */
        MALFORMED("malformed"),
        /** A signature from a known key does not verify (C2SP signed-note: the whole note is refused). */
        BAD_SIGNATURE("badSignature"),
        /** No signature from a trusted key for this origin verified. */
        UNSIGNED("unsigned"),
        /** The checkpoint's origin is not a log of the policy. */
        UNKNOWN_ORIGIN("unknownOrigin"),
        /** An inclusion proof does not lead to the checkpoint's root. */
        NOT_INCLUDED("notIncluded"),
        /** Two checkpoints of one log cannot both be true. */
        INCONSISTENT("inconsistent"),
        /** The witnesses whose cosignatures verified do not meet the policy's quorum. */
        QUORUM_NOT_MET("quorumNotMet"),
        /** A size, index or width outside what the format allows. */
        OUT_OF_RANGE("outOfRange"),
        /** A hash the proof needs is not available (a tile is missing). */
        MISSING_HASH("missingHash");

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

    LogError(Code code, String detail) {
        super(code, detail);
        this.code = code;
    }

    /** The rule broken. */
    @Override
    public Code code() {
        return code;
    }
}
