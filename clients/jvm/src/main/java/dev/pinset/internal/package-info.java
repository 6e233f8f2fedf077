/**
 * Implementation details of {@code dev.pinset} (encodings, JSON, hashing, host names). Public only so that
 * {@code dev.pinset} can call it; not API: it changes without notice.
 */
package dev.pinset.internal;
