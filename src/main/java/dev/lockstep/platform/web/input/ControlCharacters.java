package dev.lockstep.platform.web.input;

/**
 * Which characters no text the service accepts may hold. Control characters (C0 except tab, line
 * feed and carriage return; DEL; C1) have no business in a title, a reason or an id, and some of them
 * break what stores the text: PostgreSQL refuses NUL in a {@code text} column, deep inside the engine's
 * history writes. A lone surrogate half cannot be encoded as UTF-8 at all. Tab and line breaks stay
 * allowed so that free-text fields (description, comment, reason) can hold paragraphs.
 */
public final class ControlCharacters {

    private ControlCharacters() {
    }

    /** The index of the first forbidden character in {@code text}, or -1 when there is none. */
    public static int firstForbidden(CharSequence text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (forbidden(c)) {
                return i;
            }
        }
        return -1;
    }

    public static boolean contains(CharSequence text) {
        return text != null && firstForbidden(text) >= 0;
    }

    /** How a refusal names the offending character, e.g. {@code U+0000}. */
    public static String describeFirst(CharSequence text) {
        return String.format("U+%04X at position %d", (int) text.charAt(firstForbidden(text)), firstForbidden(text));
    }

    private static boolean forbidden(char c) {
        if (c == '\t' || c == '\n' || c == '\r') {
            return false;
        }
        return c < 0x20 || (c >= 0x7F && c <= 0x9F) || Character.isSurrogate(c);
    }
}
