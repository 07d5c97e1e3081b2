package io.strata.engine.netdata;

import java.util.Locale;
import java.util.OptionalLong;

/**
 * The strict readers of the numbers Strata refuses when they are not numbers: its own configuration
 * keys (the {@code [db]} sizes and retentions, the {@code [web]} limits, exporting's timeouts), where a
 * typo must stop the start with the key's name rather than be read as 0 the way C's {@link CNumbers}
 * would. Each reader returns an empty value for text it does not accept; the caller words the error
 * with its file, section and key.
 */
public final class ConfigNumbers {

    /** The units {@link #durationSeconds} accepts, for error messages. */
    public static final String DURATION_UNITS = "s, m, h, d, w, mo or y";

    private ConfigNumbers() {
    }

    /**
     * A whole decimal number, optionally signed, with white space around it; empty for anything else
     * (fractions, units, hexadecimal, out of the {@code long} range).
     */
    public static OptionalLong wholeNumber(String text) {
        if (text == null) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(text.trim()));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * A duration in seconds: a number of at most 12 digits with an optional unit ({@code s},
     * {@code m}, {@code h}, {@code d}, {@code w}, {@code mo} of 30 days, {@code y} of 365 days; any
     * case, white space allowed between number and unit); a bare number is seconds. Empty for anything
     * else, and for a duration past the {@code long} range.
     */
    public static OptionalLong durationSeconds(String text) {
        if (text == null) {
            return OptionalLong.empty();
        }
        String s = text.trim().toLowerCase(Locale.ROOT);
        int i = 0;
        while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            i++;
        }
        if (i == 0 || i > 12) {
            return OptionalLong.empty();
        }
        long multiplier;
        switch (s.substring(i).trim()) {
            case "", "s" -> multiplier = 1;
            case "m" -> multiplier = 60;
            case "h" -> multiplier = 3600;
            case "d" -> multiplier = 86_400;
            case "w" -> multiplier = 7 * 86_400L;
            case "mo" -> multiplier = 30 * 86_400L;
            case "y" -> multiplier = 365 * 86_400L;
            default -> {
                return OptionalLong.empty();
            }
        }
        try {
            return OptionalLong.of(Math.multiplyExact(Long.parseLong(s.substring(0, i)), multiplier));
        } catch (ArithmeticException e) {
            return OptionalLong.empty();
        }
    }
}
