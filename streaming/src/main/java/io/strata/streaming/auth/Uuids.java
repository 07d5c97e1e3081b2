package io.strata.streaming.auth;

import java.util.Locale;

/**
 * The UUID test Netdata applies to API keys and machine GUIDs ({@code regenerate_guid()}, i.e.
 * libuuid's {@code uuid_parse()}): exactly 36 characters, {@code -} at positions 8, 13, 18 and 23,
 * hexadecimal digits (either case) everywhere else.
 *
 * <p>Netdata keeps the text as received and compares by exact string, so {@code [MACHINE_GUID]}
 * sections, the own-GUID refusal and the duplicate-stream refusal could be passed by writing the
 * same UUID in upper case. Strata compares in one canonical form, {@link #canonical}: lower case.
 */
public final class Uuids {

    private Uuids() {
    }

    /** The canonical spelling of a UUID text: lower case (other text is returned as it is). */
    public static String canonical(String text) {
        if (text == null || !isUuid(text)) {
            return text;
        }
        return text.toLowerCase(Locale.ROOT);
    }

    public static boolean isUuid(String text) {
        if (text == null || text.length() != 36) {
            return false;
        }
        for (int i = 0; i < 36; i++) {
            char c = text.charAt(i);
            if (i == 8 || i == 13 || i == 18 || i == 23) {
                if (c != '-') {
                    return false;
                }
            } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
                return false;
            }
        }
        return true;
    }
}
