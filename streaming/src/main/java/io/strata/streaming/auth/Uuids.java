package io.strata.streaming.auth;

/**
 * The UUID test Netdata applies to API keys and machine GUIDs ({@code regenerate_guid()}, i.e.
 * libuuid's {@code uuid_parse()}): exactly 36 characters, {@code -} at positions 8, 13, 18 and 23,
 * hexadecimal digits (either case) everywhere else. No other normalisation: Netdata keeps the text
 * as received, so stream.conf sections and GUID comparisons are by exact string.
 */
public final class Uuids {

    private Uuids() {
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
