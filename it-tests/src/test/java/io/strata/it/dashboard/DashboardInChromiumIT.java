package io.strata.it.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.node.config.NodeConfig;
import io.strata.node.runtime.NodeRoles;
import io.strata.node.runtime.StrataNode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Netdata's own dashboard (Debian's netdata-web) in a real browser, against a Strata parent fed
 * by a Strata child: headless Chromium opens the child's dashboard through the parent
 * ({@code /host/<child>/}), and the test asserts from the page (dygraph canvases with drawn
 * pixels), from the network (every {@code /api/v1/data} the dashboard asked was answered 200) and
 * from the screenshot (coloured chart lines inside the charts' rectangles). The screenshot is
 * kept as {@code it-tests/target/dashboard/strata-dashboard.png}.
 */
class DashboardInChromiumIT {

    static final Path WEB = Path.of("/usr/share/netdata/web/index.html");
    static final String KEY = "11111111-2222-3333-4444-555555555555";
    static final int CHARTS = 8;
    static final int WIDTH = 1280;
    static final int HEIGHT = 1600;
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    static void assumeBrowserAndDashboard() {
        List<String> missing = new ArrayList<>();
        if (!Files.isExecutable(HeadlessChromium.BINARY)) {
            missing.add(HeadlessChromium.BINARY + " (apt-get install -y chromium)");
        }
        if (!Files.isRegularFile(WEB)) {
            missing.add(WEB + " (apt-get install -y netdata-web)");
        }
        if (!missing.isEmpty()) {
            System.out.println("SKIPPED: the dashboard test needs " + String.join(" and ", missing));
        }
        Assumptions.assumeTrue(missing.isEmpty(), "missing: " + missing);
    }

    @Test
    void netdataDashboardDrawsTheChildsChartsFromAStrataParent() throws Exception {
        assumeBrowserAndDashboard();
        Path parentDir = Files.createDirectories(tmp.resolve("parent"));
        Files.writeString(parentDir.resolve("netdata.conf"), "[global]\n\thostname = dash-parent\n"
                + "[db]\n\tmode = dbengine\n\tstorage tiers = 2\n"
                + "[web]\n\tbind to = 127.0.0.1:0\n"
                + "[directories]\n\tcache = " + parentDir.resolve("cache") + "\n\tlib = " + parentDir.resolve("lib") + "\n");
        Files.writeString(parentDir.resolve("stream.conf"), "[stream]\n\tenabled = no\n\n"
                + "[" + KEY + "]\n\tenabled = yes\n\tallow from = *\n");
        try (StrataNode parent = NodeRoles.start(NodeConfig.load(parentDir), null)) {
            int port = parent.listening().get(0).getPort();
            Path childDir = Files.createDirectories(tmp.resolve("child"));
            Files.writeString(childDir.resolve("netdata.conf"), "[global]\n\thostname = dash-child\n"
                    + "[db]\n\tmode = dbengine\n\tstorage tiers = 1\n"
                    + "[web]\n\tbind to = 127.0.0.1:0\n"
                    + "[strata]\n\tsynthetic charts = " + CHARTS + "\n\tsynthetic dimensions per chart = 4\n"
                    + "[directories]\n\tcache = " + childDir.resolve("cache") + "\n\tlib = " + childDir.resolve("lib") + "\n");
            Files.writeString(childDir.resolve("stream.conf"), "[stream]\n\tenabled = yes\n"
                    + "\tdestination = 127.0.0.1:" + port + "\n\tapi key = " + KEY + "\n");
            try (StrataNode child = NodeRoles.start(NodeConfig.load(childDir), null)) {
                waitForChildCharts(port);
                // some history, so that every chart has a line long enough to count (the dashboard
                // shows 5 minutes: 15 s are ~50 px of each line)
                waitForHistory(port, 15);
                browse(port);
            }
        }
    }

    private static void waitForChildCharts(int port) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/host/dash-child/api/v1/charts")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            last = r.statusCode() + " " + r.body();
            if (r.statusCode() == 200) {
                JsonNode charts = JSON.readTree(r.body()).path("charts");
                int synthetic = 0;
                for (int c = 0; c < CHARTS; c++) {
                    synthetic += charts.has("strata.synthetic_" + c) ? 1 : 0;
                }
                if (synthetic == CHARTS) {
                    return;
                }
            }
            Thread.sleep(250);
        }
        throw new AssertionError("the parent never held the child's " + CHARTS + " charts: "
                + last.substring(0, Math.min(300, last.length())));
    }

    /** Until the parent holds {@code seconds} of every synthetic chart of the child (a busy machine collects late). */
    private static void waitForHistory(int port, int seconds) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            int longEnough = 0;
            for (int c = 0; c < CHARTS; c++) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + "/host/dash-child/api/v1/chart?chart=strata.synthetic_" + c)).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                last = r.statusCode() + " " + r.body();
                if (r.statusCode() == 200) {
                    JsonNode chart = JSON.readTree(r.body());
                    long span = chart.path("last_entry").asLong() - chart.path("first_entry").asLong();
                    longEnough += span >= seconds ? 1 : 0;
                }
            }
            if (longEnough == CHARTS) {
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("the parent never held " + seconds + " s of the child's " + CHARTS + " charts: "
                + last.substring(0, Math.min(300, last.length())));
    }

    private void browse(int port) throws Exception {
        Map<String, Integer> dataAnswers = new ConcurrentHashMap<>();
        Map<String, Integer> otherAnswers = new ConcurrentHashMap<>();
        try (HeadlessChromium chromium = HeadlessChromium.start(tmp.resolve("chromium-profile"), WIDTH, HEIGHT,
                Duration.ofSeconds(180))) {
            chromium.onEvent(e -> {
                if ("Network.responseReceived".equals(e.path("method").asText())) {
                    JsonNode resp = e.path("params").path("response");
                    String url = resp.path("url").asText();
                    if (url.startsWith("http://127.0.0.1:" + port + "/")) {
                        (url.contains("/api/v1/data?") ? dataAnswers : otherAnswers).put(url, resp.path("status").asInt());
                    }
                }
            });
            chromium.call("Network.enable", Map.of());
            chromium.call("Page.enable", Map.of());
            chromium.call("Emulation.setDeviceMetricsOverride", Map.of("width", WIDTH, "height", HEIGHT,
                    "deviceScaleFactor", 1, "mobile", false));
            // the dashboard pauses its refreshes in a window without focus, and a headless one has none
            chromium.call("Emulation.setFocusEmulationEnabled", Map.of("enabled", true));
            chromium.call("Page.bringToFront", Map.of());
            chromium.call("Page.navigate", Map.of("url", "http://127.0.0.1:" + port + "/host/dash-child/"));

            // the dashboard draws the charts in view; wait until several have drawn lines
            JsonNode charts = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                charts = chromium.evaluate(CHART_STATE);
                if (charts.path("drawn").asInt() >= 4) {
                    break;
                }
                Thread.sleep(500);
            }
            // the screenshot, taken again (a busy machine draws late) until the lines are in it
            byte[] png = null;
            String lines = null;
            long shotDeadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            do {
                Thread.sleep(1_000);
                charts = chromium.evaluate(CHART_STATE);
                png = chromium.screenshotPng();
                lines = linesInScreenshot(png, charts.path("rects"));
            } while (lines != null && System.nanoTime() < shotDeadline);
            Path out = Path.of("target", "dashboard");
            Files.createDirectories(out);
            Files.write(out.resolve("strata-dashboard.png"), png);
            System.out.println("dashboard: " + charts + "; screenshot " + out.resolve("strata-dashboard.png").toAbsolutePath()
                    + "; " + dataAnswers.size() + " data requests (" + dataAnswers.keySet().stream().limit(3).toList()
                    + "...), others " + otherAnswers);

            assertTrue(charts.path("containers").asInt() >= CHARTS, "chart containers: " + charts);
            assertTrue(charts.path("drawn").asInt() >= 4, "charts with drawn pixels: " + charts);
            assertTrue(dataAnswers.size() >= 8, "the dashboard asked for data " + dataAnswers.size() + " times");
            Set<Integer> statuses = new HashSet<>(dataAnswers.values());
            assertEquals(Set.of(200), statuses, "statuses of /api/v1/data: " + dataAnswers);
            for (String api : List.of("/api/v1/info", "/api/v1/charts", "/api/v1/alarms?active")) {
                assertTrue(otherAnswers.entrySet().stream().anyMatch(e -> e.getKey().contains(api) && e.getValue() == 200),
                        api + " was not answered 200: " + otherAnswers);
            }
            assertNull(lines, lines);
        }
    }

    /**
     * For every dygraph chart: its canvases' rectangle and how many of their pixels are painted.
     * A chart counts as drawn when its line canvas has painted pixels beyond the axes and grid.
     */
    static final String CHART_STATE = """
            (() => {
              const containers = document.querySelectorAll('.netdata-container-with-legend').length;
              const rects = [];
              let drawn = 0;
              for (const chart of document.querySelectorAll('.dygraph-chart--legend-bottom')) {
                let painted = 0;
                for (const c of chart.querySelectorAll('canvas')) {
                  if (!c.width || !c.height) continue;
                  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                  let coloured = 0;
                  for (let i = 0; i < d.length; i += 4) {
                    const max = Math.max(d[i], d[i + 1], d[i + 2]), min = Math.min(d[i], d[i + 1], d[i + 2]);
                    if (d[i + 3] > 128 && max - min > 60) coloured++;
                  }
                  painted = Math.max(painted, coloured);
                }
                const r = chart.querySelector('canvas')?.getBoundingClientRect();
                if (r && r.bottom > 0 && r.top < window.innerHeight) {
                  rects.push({x: Math.round(r.left), y: Math.round(r.top), w: Math.round(r.width), h: Math.round(r.height), painted});
                }
                if (painted > 100) drawn++;
              }
              return {containers, drawn, rects};
            })()
            """;

    /**
     * The screenshot itself: inside the rectangles of the charts in view, the lines are the
     * saturated pixels (the dark theme's background, grid and labels are grey). Each chart in view
     * must show at least 100 of them in at least 3 distinct hues. Null when they do, else what was seen.
     */
    private static String linesInScreenshot(byte[] png, JsonNode rects) throws Exception {
        BufferedImage img = ImageIO.read(new ByteArrayInputStream(png));
        assertTrue(img.getWidth() >= WIDTH / 2 && img.getHeight() >= HEIGHT / 2,
                "screenshot " + img.getWidth() + "x" + img.getHeight());
        int chartsWithLines = 0;
        List<String> seen = new ArrayList<>();
        for (JsonNode r : rects) {
            int x0 = Math.max(0, r.get("x").asInt());
            int y0 = Math.max(0, r.get("y").asInt());
            int x1 = Math.min(img.getWidth(), x0 + r.get("w").asInt());
            int y1 = Math.min(img.getHeight(), y0 + r.get("h").asInt());
            int coloured = 0;
            Set<Integer> hues = new HashSet<>();
            for (int y = y0; y < y1; y++) {
                for (int x = x0; x < x1; x++) {
                    int rgb = img.getRGB(x, y);
                    int red = (rgb >> 16) & 0xff;
                    int green = (rgb >> 8) & 0xff;
                    int blue = rgb & 0xff;
                    int max = Math.max(red, Math.max(green, blue));
                    int min = Math.min(red, Math.min(green, blue));
                    if (max - min > 60) {
                        coloured++;
                        float[] hsb = java.awt.Color.RGBtoHSB(red, green, blue, null);
                        hues.add(Math.round(hsb[0] * 12) % 12);
                    }
                }
            }
            seen.add(coloured + " px/" + hues.size() + " hues");
            if (coloured >= 100 && hues.size() >= 3) {
                chartsWithLines++;
            }
        }
        return chartsWithLines >= 3 ? null : "charts with coloured lines in the screenshot: " + chartsWithLines
                + " of " + rects.size() + " in view " + seen;
    }
}
