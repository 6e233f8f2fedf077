package dev.pinset;

/**
 * Why something the client received was refused: a {@link #code()} and a {@link #detail()}. The one base of the
 * client's refusals ({@link DocumentRejection} for pin documents, {@link TrustRejection} for trust documents,
 * {@link LogError} for transparency-log artefacts), as the Swift client has one coded-error shape: each subclass
 * names its own codes in a nested {@code Code} enum and narrows {@link #code()} to it, so callers that catch a
 * subclass keep its enum. Compare codes, never message strings. A refusal changes nothing, and its message never
 * holds key material.
 */
public abstract class PinSetRejection extends Exception {
    private static final long serialVersionUID = 1L;

    /** A refusal code: every subclass's {@code Code} enum implements it. */
    public interface Code {
        /** The stable name shared with the Swift client and the test vectors, e.g. {@code "unknownKey"}. */
        String wireName();
    }

    private final String detail;

    /** Only this package's refusals extend it. */
    PinSetRejection(Code code, String detail) {
        super(code.wireName() + ": " + detail);
        this.detail = detail;
    }

    /** The rule broken; each subclass narrows it to its own enum. */
    public abstract Code code();

    /** The code's stable name ({@code code().wireName()}), shared with the Swift client and the test vectors. */
    public final String wireName() {
        return code().wireName();
    }

    /** What exactly is wrong; never contains key material. */
    public final String detail() {
        return detail;
    }
}
