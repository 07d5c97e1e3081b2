package io.strata.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/** The recorded Netdata 1.37.1 answers copied under test resources (vectors/netdata-1.37.1-api). */
final class Vectors {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final String BASE = "/vectors/netdata-1.37.1-api/responses/";

    private Vectors() {
    }

    /** The body of {@code name}, gunzipped when it was stored as {@code .body.gz}. */
    static String body(String name) {
        try (InputStream plain = Vectors.class.getResourceAsStream(BASE + name + ".body")) {
            if (plain != null) {
                return new String(plain.readAllBytes(), StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (InputStream gz = Vectors.class.getResourceAsStream(BASE + name + ".body.gz")) {
            if (gz == null) {
                throw new IllegalArgumentException("no vector " + name);
            }
            return new String(new GZIPInputStream(gz).readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode json(String name) {
        try {
            return JSON.readTree(body(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The recorded response headers of {@code name}: status line under "", then name → value. */
    static Map<String, String> headers(String name) {
        try (InputStream in = Vectors.class.getResourceAsStream(BASE + name + ".headers")) {
            if (in == null) {
                throw new IllegalArgumentException("no headers for " + name);
            }
            Map<String, String> h = new LinkedHashMap<>();
            String[] lines = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1).split("\r?\n");
            h.put("", lines[0]);
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                if (colon > 0) {
                    h.put(lines[i].substring(0, colon).toLowerCase(java.util.Locale.ROOT), lines[i].substring(colon + 1).trim());
                }
            }
            return h;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The request path of {@code name}, from index.tsv. */
    static String path(String name) {
        for (String line : body0("index.tsv").split("\n")) {
            String[] f = line.split("\t");
            if (f.length >= 4 && f[0].equals(name)) {
                return f[3];
            }
        }
        throw new IllegalArgumentException("no index entry " + name);
    }

    private static String body0(String file) {
        try (InputStream in = Vectors.class.getResourceAsStream(BASE + file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
