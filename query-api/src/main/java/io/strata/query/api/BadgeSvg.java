package io.strata.query.api;

import io.strata.engine.netdata.CNumbers;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * The SVG of Netdata 1.37.1's badges ({@code web_buffer_svg.c}): shields.io's flat template, the
 * text widths estimated with Verdana 11 character widths, the value printed with Netdata's
 * precision and unit rules, colours by name, hex or by thresholds on the value
 * ({@code red>80|yellow>50|green}). Everything Netdata prints is reproduced character for
 * character: the client's script re-measures the text anyway, but caches and tests compare bytes.
 */
public final class BadgeSvg {

    private BadgeSvg() {
    }

    static final int HORIZONTAL_PADDING = 4;
    private static final double VERDANA_KERNING = 0.2;
    private static final double VERDANA_PADDING = 1.0;
    /** Netdata's buffers: the value with its units, the label, a colour expression. */
    static final int VALUE_STRING_SIZE = 100;
    static final int LABEL_STRING_SIZE = 200;
    static final int COLOR_STRING_SIZE = 100;
    private static final int COLOR_ARG_MAXLEN = 20;

    /** Width in pixels of each ASCII character in Verdana 11 (shields.io's measurements, as Netdata uses them); 0 for control characters. */
    private static final double[] VERDANA11_WIDTHS = {
        0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0,
        3.8671874999999996, 4.3291015625, 5.048828125, 9.001953125,
        6.9931640625, 11.837890625, 7.992187499999999, 2.9541015625,
        4.9951171875, 4.9951171875, 6.9931640625, 9.001953125,
        4.00146484375, 4.9951171875, 4.00146484375, 4.9951171875,
        6.9931640625, 6.9931640625, 6.9931640625, 6.9931640625,
        6.9931640625, 6.9931640625, 6.9931640625, 6.9931640625,
        6.9931640625, 6.9931640625, 4.9951171875, 4.9951171875,
        9.001953125, 9.001953125, 9.001953125, 5.99951171875,
        11.0, 7.51953125, 7.541015625, 7.680664062499999,
        8.4755859375, 6.95556640625, 6.32177734375, 8.529296875,
        8.26611328125, 4.6298828125, 5.00048828125, 7.62158203125,
        6.123046875, 9.2705078125, 8.228515625, 8.658203125,
        6.63330078125, 8.658203125, 7.6484375, 7.51953125,
        6.7783203125, 8.05126953125, 7.51953125, 10.87646484375,
        7.53564453125, 6.767578125, 7.53564453125, 4.9951171875,
        4.9951171875, 4.9951171875, 9.001953125, 6.9931640625,
        6.9931640625, 6.6064453125, 6.853515625, 5.73095703125,
        6.853515625, 6.552734375, 3.8671874999999996, 6.853515625,
        6.9609375, 3.0185546875, 3.78662109375, 6.509765625,
        3.0185546875, 10.69921875, 6.9609375, 6.67626953125,
        6.853515625, 6.853515625, 4.6943359375, 5.73095703125,
        4.33447265625, 6.9609375, 6.509765625, 9.001953125,
        6.509765625, 6.509765625, 5.779296875, 6.982421875,
        4.9951171875, 6.982421875, 9.001953125, 0.0
    };

    private static final String[][] COLORS = {
        {"brightgreen", "4c1"}, {"green", "97CA00"}, {"yellow", "dfb317"}, {"yellowgreen", "a4a61d"},
        {"orange", "fe7d37"}, {"red", "e05d44"}, {"blue", "007ec6"}, {"grey", "555"}, {"gray", "555"},
        {"lightgrey", "9f9f9f"}, {"lightgray", "9f9f9f"},
    };

    /** A badge's parameters, as {@code buffer_svg} takes them. */
    public record Spec(String label, double value, String units, String labelColor, String valueColor,
                       int precision, int scale, boolean displayAbsolute, int fixedWidthLabel, int fixedWidthValue,
                       String textColorLabel, String textColorValue) {
    }

    /** The whole SVG document. */
    public static String render(Spec s) {
        double labelWidth = s.fixedWidthLabel();
        double valueWidth = s.fixedWidthValue();
        double height = 20.0;
        double fontSize = 11.0;
        double textOffset = 5.8;
        double roundCorner = 3.0;
        int scale = Math.max(100, s.scale());
        double value = s.value();
        String valueColor = s.valueColor();
        if (valueColor == null || valueColor.isEmpty()) {
            valueColor = Double.isFinite(value) ? "4c1" : "999";
        }
        String valueColorChosen = calcColor(valueColor, value);
        String valueString = formatValueAndUnit(s.displayAbsolute() ? Math.abs(value) : value, s.units(),
                s.precision());
        boolean fixed = s.fixedWidthLabel() > 0 && s.fixedWidthValue() > 0;
        if (!fixed) {
            labelWidth = verdana11Width(s.label(), fontSize) + HORIZONTAL_PADDING * 2;
            valueWidth = verdana11Width(valueString, fontSize) + HORIZONTAL_PADDING * 2;
        }
        double totalWidth = labelWidth + valueWidth;
        String labelEscaped = escapeXml(s.label(), LABEL_STRING_SIZE);
        String valueEscaped = escapeXml(valueString, VALUE_STRING_SIZE);
        String labelColor = parseColorArgument(s.labelColor(), "555");
        String valueColorParsed = parseColorArgument(valueColorChosen, "555");

        totalWidth = totalWidth * scale / 100.0;
        height = height * scale / 100.0;
        fontSize = fontSize * scale / 100.0;
        textOffset = textOffset * scale / 100.0;
        labelWidth = labelWidth * scale / 100.0;
        valueWidth = valueWidth * scale / 100.0;
        roundCorner = roundCorner * scale / 100.0;

        StringBuilder b = new StringBuilder(2600);
        b.append("<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"")
                .append(f2(totalWidth)).append("\" height=\"").append(f2(height)).append("\">")
                .append("<linearGradient id=\"smooth\" x2=\"0\" y2=\"100%\">")
                .append("<stop offset=\"0\" stop-color=\"#bbb\" stop-opacity=\".1\"/>")
                .append("<stop offset=\"1\" stop-opacity=\".1\"/>")
                .append("</linearGradient>")
                .append("<mask id=\"round\">")
                .append("<rect class=\"bdge-ttl-width\" width=\"").append(f2(totalWidth)).append("\" height=\"")
                .append(f2(height)).append("\" rx=\"").append(f2(roundCorner)).append("\" fill=\"#fff\"/>")
                .append("</mask>")
                .append("<g mask=\"url(#round)\">")
                .append("<rect class=\"bdge-rect-lbl\" width=\"").append(f2(labelWidth)).append("\" height=\"")
                .append(f2(height)).append("\" fill=\"#").append(labelColor).append("\"/>");
        if (fixed) {
            b.append("<clipPath id=\"lbl-rect\"><rect class=\"bdge-rect-lbl\" width=\"").append(f2(labelWidth))
                    .append("\" height=\"").append(f2(height)).append("\"/></clipPath>");
        }
        b.append("<rect class=\"bdge-rect-val\" x=\"").append(f2(labelWidth)).append("\" width=\"")
                .append(f2(valueWidth)).append("\" height=\"").append(f2(height)).append("\" fill=\"#")
                .append(valueColorParsed).append("\"/>");
        if (fixed) {
            b.append("<clipPath id=\"val-rect\"><rect class=\"bdge-rect-val\" x=\"").append(f2(labelWidth))
                    .append("\" width=\"").append(f2(valueWidth)).append("\" height=\"").append(f2(height))
                    .append("\"/></clipPath>");
        }
        String y1 = f0(Math.ceil(height - textOffset));
        String y2 = f0(Math.ceil(height - textOffset - 1.0));
        String lblX = f2(labelWidth / 2);
        String valX = f2(labelWidth + valueWidth / 2 - 1);
        b.append("<rect class=\"bdge-ttl-width\" width=\"").append(f2(totalWidth)).append("\" height=\"")
                .append(f2(height)).append("\" fill=\"url(#smooth)\"/>")
                .append("</g>")
                .append("<g text-anchor=\"middle\" font-family=\"DejaVu Sans,Verdana,Geneva,sans-serif\" font-size=\"")
                .append(f2(fontSize)).append("\">")
                .append("<text class=\"bdge-lbl-lbl\" x=\"").append(lblX).append("\" y=\"").append(y1)
                .append("\" fill=\"#010101\" fill-opacity=\".3\" clip-path=\"url(#lbl-rect)\">").append(labelEscaped)
                .append("</text>")
                .append("<text class=\"bdge-lbl-lbl\" x=\"").append(lblX).append("\" y=\"").append(y2)
                .append("\" fill=\"#").append(parseColorArgument(s.textColorLabel(), "fff"))
                .append("\" clip-path=\"url(#lbl-rect)\">").append(labelEscaped).append("</text>")
                .append("<text class=\"bdge-lbl-val\" x=\"").append(valX).append("\" y=\"").append(y1)
                .append("\" fill=\"#010101\" fill-opacity=\".3\" clip-path=\"url(#val-rect)\">").append(valueEscaped)
                .append("</text>")
                .append("<text class=\"bdge-lbl-val\" x=\"").append(valX).append("\" y=\"").append(y2)
                .append("\" fill=\"#").append(parseColorArgument(s.textColorValue(), "fff"))
                .append("\" clip-path=\"url(#val-rect)\">").append(valueEscaped).append("</text>")
                .append("</g>");
        if (!fixed) {
            // the browser measures the text and widens the rectangles to fit (Netdata's script, as it sends it)
            b.append("<script type=\"text/javascript\">var bdg_horiz_padding = ").append(HORIZONTAL_PADDING)
                    .append(";").append(SCRIPT).append("</script>");
        }
        b.append("</svg>");
        return b.toString();
    }

    private static final String SCRIPT = "function netdata_bdge_each(list, attr, value){"
            + "Array.prototype.forEach.call(list, function(el){el.setAttribute(attr, value);});};"
            + "var this_svg = document.currentScript.closest(\"svg\");"
            + "var elem_lbl = this_svg.getElementsByClassName(\"bdge-lbl-lbl\");"
            + "var elem_val = this_svg.getElementsByClassName(\"bdge-lbl-val\");"
            + "var lbl_size = elem_lbl[0].getBBox();"
            + "var val_size = elem_val[0].getBBox();"
            + "var width_total = lbl_size.width + bdg_horiz_padding*2;"
            + "this_svg.getElementsByClassName(\"bdge-rect-lbl\")[0].setAttribute(\"width\", width_total);"
            + "netdata_bdge_each(elem_lbl, \"x\", (lbl_size.width / 2) + bdg_horiz_padding);"
            + "netdata_bdge_each(elem_val, \"x\", width_total + (val_size.width / 2) + bdg_horiz_padding);"
            + "var val_rect = this_svg.getElementsByClassName(\"bdge-rect-val\")[0];"
            + "val_rect.setAttribute(\"width\", val_size.width + bdg_horiz_padding*2);"
            + "val_rect.setAttribute(\"x\", width_total);"
            + "width_total += val_size.width + bdg_horiz_padding*2;"
            + "var width_update_elems = this_svg.getElementsByClassName(\"bdge-ttl-width\");"
            + "netdata_bdge_each(width_update_elems, \"width\", width_total);"
            + "this_svg.setAttribute(\"width\", width_total);";

    /**
     * The estimated width of {@code s} in Verdana 11: each ASCII character its width plus kerning,
     * each multi-byte UTF-8 character one em, bytes that start nothing nothing.
     */
    static double verdana11Width(String s, double emSize) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        double w = 0.0;
        int i = 0;
        while (i < b.length) {
            int c = b[i] & 0xff;
            if ((c & 0xC0) == 0xC0) {
                i++;
                while (i < b.length && (b[i] & 0x80) != 0 && (b[i] & 0xC0) != 0xC0) {
                    i++;
                }
                w += emSize;
            } else {
                if ((c & 0x80) == 0) {
                    double t = VERDANA11_WIDTHS[c];
                    if (t != 0.0) {
                        w += t + VERDANA_KERNING;
                    }
                }
                i++;
            }
        }
        w -= VERDANA_KERNING;
        w += VERDANA_PADDING;
        return w;
    }

    /**
     * shields.io's escapes (a backslash becomes a slash), stopping where the next character or
     * entity would not fit in {@code len} bytes, as Netdata's fixed buffers do.
     */
    static String escapeXml(String src, int len) {
        byte[] b = src.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(len, b.length * 2) + 8);
        int room = len;
        for (int k = 0; k < b.length && room > 0; k++) {
            String entity = switch (b[k]) {
                case '&' -> "&amp;";
                case '<' -> "&lt;";
                case '>' -> "&gt;";
                case '"' -> "&quot;";
                case '\'' -> "&apos;";
                default -> null;
            };
            if (entity == null) {
                out.write(b[k] == '\\' ? '/' : b[k]);
                room--;
            } else if (room > entity.length()) {
                out.writeBytes(entity.getBytes(StandardCharsets.US_ASCII));
                room -= entity.length();
            } else {
                break;
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Netdata's units that change how the value is written (durations, on/off...), by name. */
    private enum UnitsFormat { NONE, SECONDS, SECONDS_AGO, MINUTES, MINUTES_AGO, HOURS, HOURS_AGO, ONOFF, UPDOWN,
        OKERROR, OKFAILED, EMPTY, PERCENT }

    private static UnitsFormat unitsFormat(String units) {
        return switch (units) {
            case "seconds" -> UnitsFormat.SECONDS;
            case "seconds ago" -> UnitsFormat.SECONDS_AGO;
            case "minutes" -> UnitsFormat.MINUTES;
            case "minutes ago" -> UnitsFormat.MINUTES_AGO;
            case "hours" -> UnitsFormat.HOURS;
            case "hours ago" -> UnitsFormat.HOURS_AGO;
            case "on/off", "on-off", "onoff" -> UnitsFormat.ONOFF;
            case "up/down", "up-down", "updown" -> UnitsFormat.UPDOWN;
            case "ok/error", "ok-error", "okerror" -> UnitsFormat.OKERROR;
            case "ok/failed", "ok-failed", "okfailed" -> UnitsFormat.OKFAILED;
            case "empty", "null" -> UnitsFormat.EMPTY;
            case "percentage", "percent", "pcent" -> UnitsFormat.PERCENT;
            default -> UnitsFormat.NONE;
        };
    }

    /** Netdata's {@code format_value_and_unit}: durations, on/off words, or the number with its units. */
    public static String formatValueAndUnit(double value, String units, int precision) {
        if (units == null) {
            units = "";
        }
        UnitsFormat format = unitsFormat(units);
        switch (format) {
            case SECONDS, SECONDS_AGO, MINUTES, MINUTES_AGO, HOURS, HOURS_AGO -> {
                if (value == 0.0) {
                    return "now";
                }
                if (!Double.isFinite(value)) {
                    return "undefined";
                }
                return duration(format, value);
            }
            case ONOFF -> {
                return value != 0.0 ? "on" : "off";
            }
            case UPDOWN -> {
                return value != 0.0 ? "up" : "down";
            }
            case OKERROR -> {
                return value != 0.0 ? "ok" : "error";
            }
            case OKFAILED -> {
                return value != 0.0 ? "ok" : "failed";
            }
            case EMPTY -> units = "";
            case PERCENT -> units = "%";
            default -> {
            }
        }
        if (!Double.isFinite(value)) {
            return "-";
        }
        return truncate(formatWithPrecision(value, units, precision), VALUE_STRING_SIZE);
    }

    /** Whole days, hours, minutes and seconds, as C's size_t arithmetic gives them (a negative value wraps). */
    private static String duration(UnitsFormat format, double value) {
        long v = (long) value;
        switch (format) {
            case SECONDS, SECONDS_AGO -> {
                String suffix = format == UnitsFormat.SECONDS_AGO ? " ago" : "";
                long d = Long.divideUnsigned(v, 86400);
                long s = Long.remainderUnsigned(v, 86400);
                long h = s / 3600;
                s = s % 3600;
                long m = s / 60;
                s = s % 60;
                String hms = pad2(h) + ":" + pad2(m) + ":" + pad2(s) + suffix;
                return d != 0 ? Long.toUnsignedString(d) + " " + (d == 1 ? "day" : "days") + " " + hms : hms;
            }
            case MINUTES, MINUTES_AGO -> {
                String suffix = format == UnitsFormat.MINUTES_AGO ? " ago" : "";
                long d = Long.divideUnsigned(v, 60 * 24);
                long m = Long.remainderUnsigned(v, 60 * 24);
                long h = m / 60;
                m = m % 60;
                return d != 0 ? Long.toUnsignedString(d) + "d " + pad2(h) + "h " + pad2(m) + "m" + suffix
                        : h + "h " + m + "m" + suffix;
            }
            default -> {
                String suffix = format == UnitsFormat.HOURS_AGO ? " ago" : "";
                long d = Long.divideUnsigned(v, 24);
                long h = Long.remainderUnsigned(v, 24);
                return d != 0 ? Long.toUnsignedString(d) + "d " + h + "h" + suffix : h + "h" + suffix;
            }
        }
    }

    private static String pad2(long v) {
        return v < 10 ? "0" + v : Long.toString(v);
    }

    /**
     * Netdata's {@code format_value_with_precision_and_unit}: without a precision, decimals by
     * magnitude (none from 1000, 1 from 10, 2 from 0.1, then 4, 5, 6, 7) with trailing zeros
     * dropped; units after a space when they start with a letter or digit.
     */
    static String formatWithPrecision(double value, String units, int precision) {
        if (!Double.isFinite(value)) {
            value = 0.0;
        }
        String separator = !units.isEmpty() && units.charAt(0) < 128 && Character.isLetterOrDigit(units.charAt(0))
                ? " " : "";
        if (precision >= 0) {
            return printf(value, Math.min(precision, 50)) + separator + units;
        }
        double abs = Math.abs(value);
        int decimals;
        if (abs >= 1000) {
            decimals = 0;
        } else if (abs >= 10) {
            decimals = 1;
        } else if (abs >= 0.1) {
            decimals = 2;
        } else if (abs >= 0.01) {
            decimals = 4;
        } else if (abs >= 0.001) {
            decimals = 5;
        } else if (abs >= 0.0001) {
            decimals = 6;
        } else {
            decimals = 7;
        }
        String text = printf(value, decimals);
        if (decimals > 0) {
            // trailing zeros of the decimals go, then the dot; never the sign
            int stop = value < 0 ? 1 : 0;
            int len = text.length();
            for (int l = len - 1; l > stop; l--) {
                char c = text.charAt(l);
                if (c == '0') {
                    len--;
                } else {
                    if (c == '.') {
                        len--;
                    }
                    break;
                }
            }
            text = text.substring(0, len);
        }
        return text + separator + units;
    }

    /** C's {@code %0.Nf}: the exact binary value rounded half-even, a negative value keeping its sign at zero. */
    static String printf(double v, int decimals) {
        String s = new BigDecimal(v).setScale(decimals, RoundingMode.HALF_EVEN).toPlainString();
        if ((v < 0 || (v == 0 && 1 / v < 0)) && s.charAt(0) != '-') {
            s = "-" + s;
        }
        return s;
    }

    private static String f2(double v) {
        return printf(v, 2);
    }

    private static String f0(double v) {
        return printf(v, 0);
    }

    /** At most {@code len} UTF-8 bytes, as Netdata's fixed-size buffers keep. */
    static String truncate(String s, int len) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return b.length <= len ? s : new String(b, 0, len, StandardCharsets.UTF_8);
    }

    /**
     * Netdata's {@code calc_colorz}: {@code color[op value]|...}, the first colour whose condition
     * holds for the value ({@code > >= < <= = : != <>}, also with {@code ( ) { }} for
     * {@code < >}; a value {@code null} or empty matches only a missing value, others read as
     * integers); the last one when none holds. The comparison of a condition without operator
     * carries over from the previous one, as in Netdata.
     */
    static String calcColor(String color, double value) {
        if (!Double.isFinite(value)) {
            value = Double.NaN;
        }
        StringBuilder colorBuffer = new StringBuilder();
        Cmp comparison = Cmp.GREATER;
        int c = 0;
        int n = color.length();
        while (c < n) {
            colorBuffer.setLength(0);
            StringBuilder dv = null;
            StringBuilder valueBuffer = new StringBuilder();
            int t = c;
            while (t < n && color.charAt(t) != '|') {
                char ch = color.charAt(t);
                char next = t + 1 < n ? color.charAt(t + 1) : '\0';
                switch (ch) {
                    case '!' -> {
                        if (next == '=') {
                            t++;
                        }
                        comparison = Cmp.NOT_EQUAL;
                        dv = valueBuffer;
                    }
                    case '=', ':' -> {
                        comparison = Cmp.EQUAL;
                        dv = valueBuffer;
                    }
                    case '}', ')', '>' -> {
                        if (next == '=') {
                            comparison = Cmp.GREATER_EQUAL;
                            t++;
                        } else {
                            comparison = Cmp.GREATER;
                        }
                        dv = valueBuffer;
                    }
                    case '{', '(', '<' -> {
                        if (next == '=') {
                            comparison = Cmp.LESS_EQUAL;
                            t++;
                        } else if (next == '>' || next == ')' || next == '}') {
                            comparison = Cmp.NOT_EQUAL;
                            t++;
                        } else {
                            comparison = Cmp.LESS;
                        }
                        dv = valueBuffer;
                    }
                    default -> {
                        if (dv != null) {
                            if (dv.length() < 256) {
                                dv.append(ch);
                            }
                        } else if (colorBuffer.length() < 256) {
                            colorBuffer.append(ch);
                        }
                    }
                }
                t++;
            }
            if (t < n && color.charAt(t) == '|') {
                t++;
            }
            c = t;
            if (dv == null) {
                break;
            }
            String vb = dv.toString();
            double v = vb.isEmpty() || vb.equals("null") ? Double.NaN : (double) strtolInt(vb);
            if (Double.isNaN(value) || Double.isNaN(v)) {
                if (Double.isNaN(value) && Double.isNaN(v)) {
                    break;
                }
            } else if (comparison.holds(value, v)) {
                break;
            }
        }
        String chosen = colorBuffer.length() > 0 ? colorBuffer.toString() : color;
        return truncate(chosen, COLOR_STRING_SIZE);
    }

    /** C's {@code strtol} of a threshold (Netdata's {@code str2l}): leading digits only. */
    private static long strtolInt(String s) {
        return CNumbers.strtol(s, 10);
    }

    private enum Cmp {
        EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL;

        boolean holds(double value, double v) {
            return switch (this) {
                case LESS -> value < v;
                case LESS_EQUAL -> value <= v;
                case GREATER -> value > v;
                case GREATER_EQUAL -> value >= v;
                case EQUAL -> value == v;
                case NOT_EQUAL -> value != v;
            };
        }
    }

    /**
     * Netdata's {@code parse_color_argument}: 3 or 6 hex digits as given, a colour name as its
     * hex, anything else (or shorter than 2, or 20 and longer) the default.
     */
    static String parseColorArgument(String arg, String def) {
        if (arg == null) {
            return def;
        }
        if (arg.length() < 2 || arg.length() >= COLOR_ARG_MAXLEN) {
            return def;
        }
        if (isHexColor(arg)) {
            return arg;
        }
        for (String[] c : COLORS) {
            if (c[0].equals(arg)) {
                return c[1];
            }
        }
        return def;
    }

    private static boolean isHexColor(String s) {
        int i = 0;
        for (; i < s.length(); i++) {
            char x = s.charAt(i);
            boolean hex = (x >= '0' && x <= '9') || (x >= 'a' && x <= 'f') || (x >= 'A' && x <= 'F');
            if (!hex || i >= 6) {
                return false;
            }
        }
        return i == 6 || i == 3;
    }
}
