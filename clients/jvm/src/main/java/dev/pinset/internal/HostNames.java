package dev.pinset.internal;

/**
 * Host names as the protocol writes them (PROTOCOL §2): lowercase ASCII DNS names, IDNs as A-labels, no trailing
 * dot, no port. The same rules as the Swift client's {@code HostName}.
 */
public final class HostNames {
    private HostNames() {}

    /** Why a host name was refused. */
    public static final class InvalidHostException extends Exception {
        private static final long serialVersionUID = 1L;

        InvalidHostException(String message) {
            super(message);
        }
    }

    /** Lowercases ASCII letters and drops one trailing dot; refuses anything that is not a DNS name. */
    public static String normalize(String text) throws InvalidHostException {
        String name = text.endsWith(".") ? text.substring(0, text.length() - 1) : text;
        if (name.isEmpty()) throw new InvalidHostException("the host name is empty");
        if (name.length() > 253) throw new InvalidHostException("the host name is longer than 253 characters");
        StringBuilder out = new StringBuilder(name.length());
        boolean allNumeric = true;
        int labelStart = 0;
        for (int i = 0; i <= name.length(); i++) {
            if (i == name.length() || name.charAt(i) == '.') {
                int length = i - labelStart;
                if (length == 0) throw new InvalidHostException("the host name has an empty label");
                if (length > 63) throw new InvalidHostException("a label of the host name is longer than 63 characters");
                if (name.charAt(labelStart) == '-' || name.charAt(i - 1) == '-') {
                    throw new InvalidHostException("a label of the host name starts or ends with a hyphen");
                }
                labelStart = i + 1;
                if (i < name.length()) out.append('.');
                continue;
            }
            char c = name.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                out.append((char) (c + 32));
                allNumeric = false;
            } else if ((c >= 'a' && c <= 'z') || c == '-') {
                out.append(c);
                allNumeric = false;
            } else if (c >= '0' && c <= '9') {
                out.append(c);
            } else if (c == ':') {
                throw new InvalidHostException("the host name must not carry a port or be an IPv6 address");
            } else if (c >= 0x80) {
                throw new InvalidHostException(
                        "the host name must be ASCII: send internationalised names as xn-- A-labels");
            } else {
                throw new InvalidHostException("the host name may only contain letters, digits, hyphens and dots");
            }
        }
        if (allNumeric) throw new InvalidHostException("the host name must be a DNS name, not an IP address");
        return out.toString();
    }

    /** {@link #normalize}, or the name only lowercased when it is not a DNS name (an IP literal). */
    public static String normalizeLenient(String host) {
        boolean plain = !host.isEmpty() && host.charAt(host.length() - 1) != '.' && host.charAt(0) != '.';
        boolean letter = false;
        for (int i = 0; plain && i < host.length(); i++) {
            char c = host.charAt(i);
            if (c >= 'a' && c <= 'z') letter = true;
            else if (!(c >= '0' && c <= '9') && c != '-' && c != '.') plain = false;
        }
        if (plain && letter && host.length() <= 253 && host.indexOf("..") < 0) return host;
        try {
            return normalize(host);
        } catch (InvalidHostException e) {
            return host.toLowerCase(java.util.Locale.ROOT);
        }
    }
}
