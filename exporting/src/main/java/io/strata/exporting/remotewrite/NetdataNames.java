package io.strata.exporting.remotewrite;

import io.strata.exporting.config.DataSource;

import java.nio.charset.StandardCharsets;

/**
 * Metric names and label values as Netdata 1.37.1's own remote-write connector gives them
 * ({@code exporting/prometheus/remote_write/remote_write.c} with the helpers of
 * {@code exporting/prometheus/prometheus.c}), so that dashboards built on Netdata's export keep working:
 * <ul>
 *   <li>average: {@code <prefix>_<context><units>_average}, sum: {@code <prefix>_<context>_sum}, where
 *       {@code <context>} is the chart's context with every byte that is not an ASCII letter or digit
 *       replaced by {@code _} and {@code <units>} is {@code _} followed by the chart's units treated the
 *       same way, {@code %} becoming {@code _percent} and a trailing {@code /s} becoming {@code _persec};</li>
 *   <li>labels {@code chart} (the chart's name, or id without {@code send names instead of ids}),
 *       {@code family}, {@code dimension} (name or id), {@code instance} (the host's name; {@code hostname}
 *       of the configuration for this node's own host). Label values are copied as Netdata copies them:
 *       {@code "}, {@code \} and a newline get a backslash before them, at most 256 bytes.</li>
 * </ul>
 * Netdata's units go into the name only for {@code average} (its {@code units} buffer is filled only then).
 */
public final class NetdataNames {

    /** {@code PROMETHEUS_ELEMENT_MAX}. */
    static final int ELEMENT_MAX = 256;
    /** {@code PROMETHEUS_LABELS_MAX}: the bound of a metric name. */
    static final int NAME_MAX = 1024;

    private NetdataNames() {
    }

    /** The metric name of a dimension of a chart with {@code context} and {@code units}. */
    public static String metricName(String prefix, String context, String units, DataSource source) {
        String name;
        if (source == DataSource.AVERAGE) {
            name = prefix + "_" + name(context) + units(units) + "_average";
        } else {
            name = prefix + "_" + name(context) + "_sum";
        }
        return name.length() < NAME_MAX ? name : name.substring(0, NAME_MAX - 1);
    }

    /**
     * {@code prometheus_name_copy}: each byte of the UTF-8 text that is not an ASCII letter or digit
     * becomes {@code _}; at most 256 bytes.
     */
    public static String name(String s) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), ELEMENT_MAX));
        for (int i = 0; i < s.length() && b.length() < ELEMENT_MAX; ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (cp < 128 && isAlnum(cp)) {
                b.append((char) cp);
            } else {
                int bytes = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
                for (int k = 0; k < bytes && b.length() < ELEMENT_MAX; k++) {
                    b.append('_');
                }
            }
        }
        return b.toString();
    }

    /**
     * {@code prometheus_label_copy}: {@code "}, {@code \} and newline escaped with a backslash; at most
     * 255 bytes of UTF-8 (a character is never cut in two).
     */
    public static String labelValue(String s) {
        StringBuilder b = new StringBuilder(s.length());
        int bytes = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            boolean escape = cp == '"' || cp == '\\' || cp == '\n';
            if (bytes + n + (escape ? 1 : 0) > ELEMENT_MAX - 1) {
                break;
            }
            if (escape) {
                b.append('\\');
                bytes++;
            }
            b.appendCodePoint(cp);
            bytes += n;
            i += Character.charCount(cp);
        }
        return b.toString();
    }

    /** {@code prometheus_units_copy(..., showoldunits = 0)}. */
    public static String units(String units) {
        if (units.equals("%")) {
            return "_percent";
        }
        String sanitized = "_" + name(units);
        byte[] raw = units.getBytes(StandardCharsets.UTF_8);
        int n = raw.length;
        if (n > 2 && raw[n - 2] == '/' && raw[n - 1] == 's') {
            return sanitized.substring(0, sanitized.length() - 2) + "_persec";
        }
        return sanitized;
    }

    private static boolean isAlnum(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }
}
