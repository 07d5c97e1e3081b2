package io.strata.it.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Debian's {@code chromium}, headless, driven through the DevTools protocol over a WebSocket of
 * {@link java.net.http.HttpClient} (no driver to download). Its network stays on loopback: every
 * host name resolves to nothing, and the background services are off. Bounded by {@code timeout}.
 */
final class HeadlessChromium implements AutoCloseable {

    static final Path BINARY = Path.of("/usr/bin/chromium");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern DEVTOOLS = Pattern.compile("DevTools listening on (ws://\\S+)");

    private final Process process;
    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final List<Consumer<JsonNode>> listeners = new CopyOnWriteArrayList<>();
    private final List<String> output = new CopyOnWriteArrayList<>();

    private HeadlessChromium(Process process, WebSocket socket) {
        this.process = process;
        this.socket = socket;
    }

    /** Starts chromium with a fresh profile under {@code profile} and connects to its first page. */
    static HeadlessChromium start(Path profile, int width, int height, Duration limit) throws Exception {
        Files.createDirectories(profile);
        List<String> cmd = new ArrayList<>(List.of("timeout", String.valueOf(limit.toSeconds()), BINARY.toString(),
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-default-apps", "--disable-extensions", "--no-default-browser-check",
                "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
                "--user-data-dir=" + profile, "--window-size=" + width + "," + height,
                "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "about:blank"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String> lines = new CopyOnWriteArrayList<>();
        CompletableFuture<String> endpoint = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (lines.size() < 500) {
                        lines.add(line);
                    }
                    Matcher m = DEVTOOLS.matcher(line);
                    if (m.find()) {
                        endpoint.complete(m.group(1));
                    }
                }
            } catch (IOException ignored) {
                // the process ended
            }
            endpoint.completeExceptionally(new IOException("chromium exited before DevTools listened: " + lines));
        }, "chromium-output");
        reader.setDaemon(true);
        reader.start();
        try {
            URI browser = URI.create(endpoint.get(30, TimeUnit.SECONDS));
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            // the page chromium opened with about:blank
            URI list = URI.create("http://" + browser.getHost() + ":" + browser.getPort() + "/json/list");
            JsonNode targets = JSON.readTree(http.send(HttpRequest.newBuilder(list).GET().build(),
                    HttpResponse.BodyHandlers.ofString()).body());
            String pageSocket = null;
            for (JsonNode t : targets) {
                if ("page".equals(t.path("type").asText())) {
                    pageSocket = t.get("webSocketDebuggerUrl").asText();
                    break;
                }
            }
            if (pageSocket == null) {
                throw new IOException("chromium has no page target: " + targets);
            }
            HeadlessChromium[] self = new HeadlessChromium[1];
            Listener listener = new Listener(msg -> self[0].dispatch(msg));
            WebSocket ws = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5))
                    .buildAsync(URI.create(pageSocket), listener).get(10, TimeUnit.SECONDS);
            self[0] = new HeadlessChromium(p, ws);
            self[0].output.addAll(lines);
            return self[0];
        } catch (Exception e) {
            p.destroyForcibly();
            throw e;
        }
    }

    /** Collects a WebSocket message's fragments and hands on whole messages. */
    private static final class Listener implements WebSocket.Listener {
        private final Consumer<String> onMessage;
        private final StringBuilder partial = new StringBuilder();

        Listener(Consumer<String> onMessage) {
            this.onMessage = onMessage;
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                String whole = partial.toString();
                partial.setLength(0);
                onMessage.accept(whole);
            }
            ws.request(1);
            return null;
        }
    }

    private void dispatch(String message) {
        try {
            JsonNode m = JSON.readTree(message);
            if (m.has("id")) {
                CompletableFuture<JsonNode> f = pending.remove(m.get("id").asInt());
                if (f != null) {
                    if (m.has("error")) {
                        f.completeExceptionally(new IOException("DevTools error: " + m.get("error")));
                    } else {
                        f.complete(m.get("result"));
                    }
                }
            } else {
                for (Consumer<JsonNode> l : listeners) {
                    l.accept(m);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("DevTools sent what is not JSON: " + message, e);
        }
    }

    /** Receives every DevTools event ({@code method}, {@code params}). */
    void onEvent(Consumer<JsonNode> listener) {
        listeners.add(listener);
    }

    /** Sends a DevTools command and waits for its result. */
    JsonNode call(String method, Map<String, ?> params) throws Exception {
        int id = ids.incrementAndGet();
        ObjectNode msg = JSON.createObjectNode();
        msg.put("id", id);
        msg.put("method", method);
        msg.set("params", JSON.valueToTree(params));
        CompletableFuture<JsonNode> f = new CompletableFuture<>();
        pending.put(id, f);
        socket.sendText(JSON.writeValueAsString(msg), true).get(10, TimeUnit.SECONDS);
        return f.get(60, TimeUnit.SECONDS);
    }

    /** Evaluates {@code expression} in the page; returns its value (JSON-serialisable results only). */
    JsonNode evaluate(String expression) throws Exception {
        JsonNode r = call("Runtime.evaluate", Map.of("expression", expression, "returnByValue", true,
                "awaitPromise", true));
        if (r.has("exceptionDetails")) {
            throw new IOException("page threw: " + r.get("exceptionDetails"));
        }
        return r.path("result").path("value");
    }

    byte[] screenshotPng() throws Exception {
        JsonNode r = call("Page.captureScreenshot", Map.of("format", "png"));
        return Base64.getDecoder().decode(r.get("data").asText());
    }

    List<String> output() {
        return List.copyOf(output);
    }

    @Override
    public void close() throws InterruptedException {
        try {
            socket.sendClose(WebSocket.NORMAL_CLOSURE, "done");
        } catch (RuntimeException ignored) {
            // already closed
        }
        List<ProcessHandle> started = process.descendants().toList();
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
        for (ProcessHandle h : started) {
            if (h.isAlive()) {
                h.destroyForcibly();
            }
        }
    }
}
