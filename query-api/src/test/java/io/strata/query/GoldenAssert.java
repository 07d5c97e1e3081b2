package io.strata.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Comparisons of our answers with recorded ones: field names and order, JSON types, numbers within a tolerance. */
final class GoldenAssert {

    private GoldenAssert() {
    }

    static List<String> fieldNames(JsonNode n) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }

    /** A JSON type name where integers and decimals are both "number" and null is its own type. */
    static String type(JsonNode n) {
        if (n.isNumber()) {
            return "number";
        }
        return n.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * Objects whose keys are data, not layout: alarms (Strata has no health engine yet), chart
     * variables (the metadata does not keep them yet) and label maps (a set; order not kept).
     */
    private static final String[] FREE_KEYS = {".alarms", ".host_labels", ".chart_labels", ".chart_variables"};

    /**
     * Same object keys in the same order and same types, recursively; arrays are compared on
     * their first element only (lengths depend on the data).
     */
    static void sameShape(JsonNode recorded, JsonNode ours, String path) {
        if (recorded.isNull() || ours.isNull()) {
            // null stands for "no value" in both; a value on one side only is allowed
            return;
        }
        assertEquals(type(recorded), type(ours), "type of " + path);
        for (String free : FREE_KEYS) {
            if (path.endsWith(free)) {
                return;
            }
        }
        if (recorded.isObject()) {
            assertEquals(fieldNames(recorded), fieldNames(ours), "fields of " + path);
            for (Iterator<String> it = recorded.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                sameShape(recorded.get(f), ours.get(f), path + "." + f);
            }
        } else if (recorded.isArray() && recorded.size() > 0 && ours.size() > 0) {
            sameShape(recorded.get(0), ours.get(0), path + "[0]");
        }
    }

    /** Row times are seconds, or milliseconds with {@code options=ms}. */
    private static long seconds(long t) {
        return t > 100_000_000_000L ? t / 1000 : t;
    }

    static void close(double expected, double actual, String what) {
        double tol = Math.max(2e-6, Math.abs(expected) * 2e-6);
        if (Math.abs(expected - actual) > tol) {
            fail(what + ": expected " + expected + " but was " + actual);
        }
    }

    /** Rows of two json-format answers equal where both have the row, values within {@link #close}; returns how many were compared. */
    static int sameRows(JsonNode recordedResult, JsonNode ourResult, long fromTime, long toTime) {
        int compared = 0;
        for (JsonNode rec : recordedResult.get("data")) {
            long t = seconds(rec.get(0).asLong());
            if (t < fromTime || t > toTime) {
                continue;
            }
            JsonNode mine = null;
            for (JsonNode o : ourResult.get("data")) {
                if (seconds(o.get(0).asLong()) == t) {
                    mine = o;
                    break;
                }
            }
            assertTrue(mine != null, "row " + t + " missing");
            assertEquals(rec.size(), mine.size(), "width of row " + t);
            for (int i = 1; i < rec.size(); i++) {
                if (rec.get(i).isNull()) {
                    assertTrue(mine.get(i).isNull(), "row " + t + " column " + i + " should be null");
                } else {
                    close(rec.get(i).asDouble(), mine.get(i).asDouble(), "row " + t + " column " + i);
                }
            }
            compared++;
        }
        return compared;
    }
}
