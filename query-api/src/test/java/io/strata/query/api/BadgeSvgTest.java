package io.strata.query.api;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The badge SVG against Netdata 1.37.1's recorded badges (the same label, value and units give
 * the same bytes), and Netdata's number, unit and colour rules on hand-made values.
 */
class BadgeSvgTest {

    static String recorded(String name) throws IOException {
        try (InputStream in = BadgeSvgTest.class.getResourceAsStream(
                "/vectors/netdata-1.37.1-api/responses/" + name + ".body")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static BadgeSvg.Spec spec(String label, double value, String units, int precision) {
        return new BadgeSvg.Spec(label, value, units, null, null, precision, 100, false, -1, -1, null, null);
    }

    @Test
    void recordedBadgesAreReproducedByteForByte() throws IOException {
        // chart=system.cpu: label the chart's name, units the chart's, the visible dimensions summed
        assertEquals(recorded("badge-cpu"), BadgeSvg.render(spec("system.cpu", 100.0, "percentage", -1)));
        // dimension=user&after=-60&label=cpu+user&units=%&precision=1
        assertEquals(recorded("badge-cpu-opts"), BadgeSvg.render(spec("cpu user", 81.8, "%", 1)));
        // an alarm's badge draws its value the same way (here: brightgreen, as a CLEAR alarm)
        BadgeSvg.Spec alarm = new BadgeSvg.Spec("load average 1", 7.44, "load", null, "brightgreen", -1, 100, false,
                -1, -1, null, null);
        assertEquals(recorded("badge-alarm"), BadgeSvg.render(alarm));
    }

    @Test
    void numbersGetDecimalsByMagnitudeWithoutTrailingZeros() {
        assertEquals("1235 u", BadgeSvg.formatValueAndUnit(1234.6, "u", -1));
        // C's printf rounds an exact half to even
        assertEquals("1234 u", BadgeSvg.formatValueAndUnit(1234.5, "u", -1));
        assertEquals("-1234 u", BadgeSvg.formatValueAndUnit(-1234.4, "u", -1));
        assertEquals("12.3%", BadgeSvg.formatValueAndUnit(12.34, "%", -1));
        assertEquals("100%", BadgeSvg.formatValueAndUnit(100.0, "%", -1));
        assertEquals("1.5 MiB", BadgeSvg.formatValueAndUnit(1.5, "MiB", -1));
        assertEquals("0.25", BadgeSvg.formatValueAndUnit(0.25, "", -1));
        assertEquals("0.0123", BadgeSvg.formatValueAndUnit(0.0123, "", -1));
        assertEquals("0.00123", BadgeSvg.formatValueAndUnit(0.00123, "", -1));
        assertEquals("0.000123", BadgeSvg.formatValueAndUnit(0.000123, "", -1));
        assertEquals("0.0000123", BadgeSvg.formatValueAndUnit(0.0000123, "", -1));
        assertEquals("0", BadgeSvg.formatValueAndUnit(0.0, "", -1));
        assertEquals("-0.5", BadgeSvg.formatValueAndUnit(-0.5, "", -1));
        assertEquals("3.142 rad", BadgeSvg.formatValueAndUnit(Math.PI, "rad", 3));
        assertEquals("2", BadgeSvg.formatValueAndUnit(2.5, "", 0));
        assertEquals("-", BadgeSvg.formatValueAndUnit(Double.NaN, "u", -1));
        // units starting with a sign or symbol are not separated
        assertEquals("5/s", BadgeSvg.formatValueAndUnit(5, "/s", -1));
        assertEquals("5", BadgeSvg.formatValueAndUnit(5, "empty", -1));
        assertEquals("5%", BadgeSvg.formatValueAndUnit(5, "pcent", -1));
    }

    @Test
    void durationsAndWordsAsNetdataWritesThem() {
        assertEquals("now", BadgeSvg.formatValueAndUnit(0, "seconds", -1));
        assertEquals("undefined", BadgeSvg.formatValueAndUnit(Double.NaN, "seconds ago", -1));
        assertEquals("01:01:01", BadgeSvg.formatValueAndUnit(3661.9, "seconds", -1));
        assertEquals("1 day 00:00:05 ago", BadgeSvg.formatValueAndUnit(86405, "seconds ago", -1));
        assertEquals("2 days 01:00:00", BadgeSvg.formatValueAndUnit(2 * 86400 + 3600, "seconds", -1));
        assertEquals("1h 5m", BadgeSvg.formatValueAndUnit(65, "minutes", -1));
        assertEquals("1d 01h 05m ago", BadgeSvg.formatValueAndUnit(1440 + 65, "minutes ago", -1));
        assertEquals("5h", BadgeSvg.formatValueAndUnit(5, "hours", -1));
        assertEquals("2d 1h ago", BadgeSvg.formatValueAndUnit(49, "hours ago", -1));
        assertEquals("on", BadgeSvg.formatValueAndUnit(1, "on/off", -1));
        assertEquals("off", BadgeSvg.formatValueAndUnit(0, "onoff", -1));
        assertEquals("down", BadgeSvg.formatValueAndUnit(0, "up-down", -1));
        assertEquals("error", BadgeSvg.formatValueAndUnit(0, "ok/error", -1));
        assertEquals("failed", BadgeSvg.formatValueAndUnit(0, "okfailed", -1));
        // a missing value is not zero
        assertEquals("on", BadgeSvg.formatValueAndUnit(Double.NaN, "on/off", -1));
    }

    @Test
    void coloursByNameHexAndThresholds() {
        assertEquals("e05d44", BadgeSvg.parseColorArgument("red", "555"));
        assertEquals("abc", BadgeSvg.parseColorArgument("abc", "555"));
        assertEquals("A0B1C2", BadgeSvg.parseColorArgument("A0B1C2", "555"));
        assertEquals("555", BadgeSvg.parseColorArgument("abcd", "555"));
        assertEquals("555", BadgeSvg.parseColorArgument("x", "555"));
        assertEquals("555", BadgeSvg.parseColorArgument("<script>", "555"));
        String thresholds = "red>80|yellow>=50|green";
        assertEquals("red", BadgeSvg.calcColor(thresholds, 81));
        assertEquals("yellow", BadgeSvg.calcColor(thresholds, 50));
        assertEquals("green", BadgeSvg.calcColor(thresholds, 49.9));
        assertEquals("green", BadgeSvg.calcColor(thresholds, Double.NaN));
        assertEquals("grey", BadgeSvg.calcColor("grey:null|blue", Double.NaN));
        assertEquals("blue", BadgeSvg.calcColor("grey:null|blue", 3));
        assertEquals("orange", BadgeSvg.calcColor("red<0|orange<>5|green", 4));
        assertEquals("green", BadgeSvg.calcColor("red<0|orange<>5|green", 5));
        // thresholds are read as integers, as Netdata's str2l
        assertEquals("red", BadgeSvg.calcColor("red>1.9|green", 1.5));
        // no condition holds and no plain colour follows: the last colour named
        assertEquals("red", BadgeSvg.calcColor("red>100", 5));
    }

    @Test
    void textIsEscapedAndMeasuredLikeNetdata() {
        assertEquals("a&amp;b&lt;c&gt;&quot;&apos;/", BadgeSvg.escapeXml("a&b<c>\"'\\", 200));
        // an entity that does not fit ends the text
        assertEquals("abc", BadgeSvg.escapeXml("abc&def", 7));
        // one em per multi-byte character, widths plus kerning per ASCII character, minus one kerning, plus padding
        assertEquals(11.0 - 0.2 + 1.0, BadgeSvg.verdana11Width("\u00e9", 11.0), 1e-12);
        assertEquals(6.9931640625 + 0.2 - 0.2 + 1.0, BadgeSvg.verdana11Width("0", 11.0), 1e-12);
        String svg = BadgeSvg.render(new BadgeSvg.Spec("x<y", 1, "u", "blue", "red>0|green", -1, 200, false, -1, -1,
                "000", "zzz"));
        assertTrue(svg.contains(">x&lt;y</text>"), svg);
        assertTrue(svg.contains("fill=\"#007ec6\""), "label colour");
        assertTrue(svg.contains("fill=\"#e05d44\""), "value colour by threshold");
        assertTrue(svg.contains("fill=\"#000\" clip-path=\"url(#lbl-rect)\""), "label text colour");
        assertTrue(svg.contains("fill=\"#fff\" clip-path=\"url(#val-rect)\""), "bad value text colour: default");
        assertTrue(svg.contains("height=\"40.00\""), "scale 200 doubles the height");
        assertTrue(svg.contains("font-size=\"22.00\""), svg);
    }

    @Test
    void fixedWidthsClipTheTextAndDropTheScript() {
        String svg = BadgeSvg.render(new BadgeSvg.Spec("label", 1, "", null, null, -1, 100, false, 50, 30, null,
                null));
        assertTrue(svg.startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\""
                + " width=\"80.00\" height=\"20.00\">"), svg);
        assertTrue(svg.contains("<clipPath id=\"lbl-rect\"><rect class=\"bdge-rect-lbl\" width=\"50.00\" height=\"20.00\"/>"
                + "</clipPath>"), svg);
        assertTrue(svg.contains("<clipPath id=\"val-rect\"><rect class=\"bdge-rect-val\" x=\"50.00\" width=\"30.00\""
                + " height=\"20.00\"/></clipPath>"), svg);
        assertFalse(svg.contains("<script"), svg);
        // the value's text centre: label + value / 2 - 1
        assertTrue(svg.contains("x=\"64.00\" y=\"15\""), svg);
    }
}
