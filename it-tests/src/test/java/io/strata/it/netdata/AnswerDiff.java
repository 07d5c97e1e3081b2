package io.strata.it.netdata;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compares two HTTP answers to the same query by structure and value: JSON as trees (object
 * keys in order, arrays by length and element), everything else as a sequence of text and number
 * tokens; numbers equal within what a storage number and Netdata's printing keep, timestamps
 * exactly. A difference is named by its kind (where it is, what differs), so that a run can
 * count them.
 */
final class AnswerDiff {

    /** One HTTP answer. */
    record Answer(int status, String contentType, String body) {
    }

    /** The first place two answers differ: {@code kind} groups alike differences, {@code detail} says where. */
    record Difference(String kind, String detail) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern NUMBER = Pattern.compile("-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?");

    private final Set<String> ignoredKeys;

    /** @param ignoredKeys object keys whose values are not compared (they change from one moment to the next) */
    AnswerDiff(Set<String> ignoredKeys) {
        this.ignoredKeys = ignoredKeys;
    }

    Difference compare(Answer netdata, Answer strata) {
        if (netdata.status() != strata.status()) {
            return new Difference("status " + netdata.status() + " vs " + strata.status(),
                    "status " + netdata.status() + " vs " + strata.status());
        }
        if (!mediaType(netdata.contentType()).equals(mediaType(strata.contentType()))) {
            return new Difference("content-type", netdata.contentType() + " vs " + strata.contentType());
        }
        JsonNode a = parse(netdata.body());
        JsonNode b = a == null ? null : parse(strata.body());
        if (a != null && b != null) {
            return compareJson("", a, b);
        }
        return compareText(moment(netdata.body()), moment(strata.body()));
    }

    /** The ignored keys' values in a wrapper that is not JSON (jsonp, google_json): blanked. */
    private String moment(String body) {
        String b = body;
        for (String k : ignoredKeys) {
            // quoted keys, or bare ones (google_json's wrapper)
            b = b.replaceAll("(\"?)\\b" + k + "\\1: (\\[[^]]*]|-?[0-9.]+)", "$1" + k + "$1: _");
        }
        // a Google data source is signed with the chart's last collection time (the moment, as
        // last_entry): the Strata parent gets each collection after the Netdata parent
        return b.replaceFirst("^([^\n]*\\(\\{version:'[^']*',reqId:'[^']*',status:'ok',sig:')[0-9]+'", "$1_'");
    }

    private static String mediaType(String contentType) {
        if (contentType == null) {
            return "";
        }
        int semi = contentType.indexOf(';');
        return (semi < 0 ? contentType : contentType.substring(0, semi)).trim().toLowerCase();
    }

    private static JsonNode parse(String body) {
        String t = body.trim();
        if (t.isEmpty() || (t.charAt(0) != '{' && t.charAt(0) != '[')) {
            return null;
        }
        try {
            return JSON.readTree(t);
        } catch (Exception notJson) {
            return null;
        }
    }

    private Difference compareJson(String path, JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return close(a.asDouble(), b.asDouble()) ? null
                    : new Difference("value " + general(path), path + ": " + a + " vs " + b);
        }
        if (a.isObject() && b.isObject()) {
            List<String> ka = keys(a);
            List<String> kb = keys(b);
            if (!ka.equals(kb)) {
                return new Difference("keys " + general(path), path + ": " + ka + " vs " + kb);
            }
            for (String k : ka) {
                if (ignoredKeys.contains(k)) {
                    continue;
                }
                Difference d = compareJson(path + "." + k, a.get(k), b.get(k));
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (a.isArray() && b.isArray()) {
            if (a.size() != b.size()) {
                return new Difference("length " + general(path), path + ": " + a.size() + " vs " + b.size()
                        + " elements");
            }
            for (int i = 0; i < a.size(); i++) {
                Difference d = compareJson(path + "[" + i + "]", a.get(i), b.get(i));
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (a.isTextual() && b.isTextual()) {
            if (a.asText().equals(b.asText())) {
                return null;
            }
            // a format inside the wrapper (csv, ssv...) is a string: compare it as text
            Difference d = compareText(a.asText(), b.asText());
            return d == null ? null : new Difference(d.kind() + " in " + general(path), path + ": " + d.detail());
        }
        if (a.equals(b)) {
            return null;
        }
        String kind = (a.isNull() || b.isNull()) ? "null " : "type ";
        return new Difference(kind + general(path), path + ": " + a + " vs " + b);
    }

    private static List<String> keys(JsonNode n) {
        List<String> k = new ArrayList<>();
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            k.add(it.next());
        }
        return k;
    }

    /** A path with its array indices left out: the kind of a difference, not its place. */
    private static String general(String path) {
        return path.isEmpty() ? "(root)" : path.replaceAll("\\[\\d+]", "[]");
    }

    private Difference compareText(String a, String b) {
        List<String> ta = tokens(a);
        List<String> tb = tokens(b);
        int n = Math.min(ta.size(), tb.size());
        for (int i = 0; i < n; i++) {
            String x = ta.get(i);
            String y = tb.get(i);
            if (x.equals(y)) {
                continue;
            }
            boolean nx = NUMBER.matcher(x).matches();
            boolean ny = NUMBER.matcher(y).matches();
            if (nx && ny) {
                if (!close(Double.parseDouble(x), Double.parseDouble(y))) {
                    return new Difference("text value", "token " + i + " (line " + line(ta, i) + "): " + x + " vs " + y);
                }
                continue;
            }
            return new Difference(nx || ny ? "text null/number" : "text", "token " + i + " (line " + line(ta, i)
                    + "): '" + x + "' vs '" + y + "'");
        }
        if (ta.size() != tb.size()) {
            return new Difference("text length", ta.size() + " vs " + tb.size() + " tokens");
        }
        return null;
    }

    private static int line(List<String> tokens, int upTo) {
        int l = 1;
        for (int i = 0; i < upTo; i++) {
            l += tokens.get(i).chars().filter(ch -> ch == '\n').count();
        }
        return l;
    }

    /** Numbers and the text between them; runs of blanks count as one. */
    static List<String> tokens(String s) {
        List<String> out = new ArrayList<>();
        Matcher m = NUMBER.matcher(s);
        int at = 0;
        while (m.find()) {
            if (m.start() > at) {
                addText(out, s.substring(at, m.start()));
            }
            out.add(m.group());
            at = m.end();
        }
        if (at < s.length()) {
            addText(out, s.substring(at));
        }
        return out;
    }

    private static void addText(List<String> out, String text) {
        String t = text.replaceAll("[ \\t]+", " ");
        if (!t.isEmpty()) {
            out.add(t);
        }
    }

    /**
     * Equal within a storage number's precision (about 7 significant digits, printed with up to 7
     * decimals); unix times (seconds or milliseconds) exactly.
     */
    static boolean close(double a, double b) {
        if (a == b) {
            return true;
        }
        if (Math.abs(a) >= 1e9 || Math.abs(b) >= 1e9) {
            return false;
        }
        double diff = Math.abs(a - b);
        return diff <= 2e-7 + 1e-5 * Math.max(Math.abs(a), Math.abs(b));
    }
}
