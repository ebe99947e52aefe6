package dev.lockstep.platform.security;

/**
 * The characters Spring Security's {@code StrictHttpFirewall} lets through in a header, tested by a loop over the code
 * points rather than by its regular expressions: a name must match {@code [\p{IsAssigned}&&[^\p{IsControl}]]*}, a value
 * the same or a tab. The firewall runs its check on every read of a header, and the matcher cost about 4 % of the
 * request threads' CPU (docs/performance.md); {@code HeaderCharactersPropertyTest} holds the loop to the expressions.
 */
final class HeaderCharacters {

    private HeaderCharacters() {
    }

    static boolean allowedName(String name) {
        return assignedAndNoControl(name, false);
    }

    static boolean allowedValue(String value) {
        return assignedAndNoControl(value, true);
    }

    /** As the expressions read it: each code point assigned and not a control character (a tab allowed in values). */
    private static boolean assignedAndNoControl(String text, boolean tabAllowed) {
        for (int i = 0; i < text.length(); ) {
            int codePoint = text.codePointAt(i);
            int type = Character.getType(codePoint);
            if (type == Character.UNASSIGNED || type == Character.CONTROL && !(tabAllowed && codePoint == '\t')) {
                return false;
            }
            i += Character.charCount(codePoint);
        }
        return true;
    }
}
