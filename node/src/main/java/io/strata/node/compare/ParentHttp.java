package io.strata.node.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/** GETs of a parent's Netdata API on 127.0.0.1, bounded in time. */
final class ParentHttp {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final int port;

    ParentHttp(int port) {
        this.port = port;
    }

    JsonNode json(String pathAndQuery) throws IOException {
        return JSON.readTree(text(pathAndQuery));
    }

    String text(String pathAndQuery) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + pathAndQuery).toURL()
                .openConnection();
        c.setConnectTimeout(2_000);
        c.setReadTimeout(20_000);
        try {
            int status = c.getResponseCode();
            try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
                String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
                if (status >= 400) {
                    throw new IOException("GET " + pathAndQuery + " -> " + status + ": "
                            + body.substring(0, Math.min(200, body.length())));
                }
                return body;
            }
        } finally {
            c.disconnect();
        }
    }
}
