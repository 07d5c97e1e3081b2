package io.strata.it.micrometer;

import io.strata.engine.meta.MetadataStore;
import io.strata.node.config.NodeConfig;
import io.strata.node.runtime.NodeRoles;
import io.strata.node.runtime.StrataNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A JVM application built on the {@code strata-micrometer} artifact alone: {@link MicrometerChildExample}
 * runs in its own JVM whose classpath is that artifact and its runtime dependencies (no node, no
 * CLI, no Logback), and streams its meters into a Strata parent, which then holds them.
 */
class MicrometerChildIT {

    static final String KEY = "11111111-2222-3333-4444-666666666666";

    @TempDir
    Path tmp;

    @Test
    void anApplicationOnTheMicrometerArtifactAloneStreamsItsMetersIntoAParent() throws Exception {
        String classpath = applicationClasspath();
        for (String forbidden : List.of("strata-node", "/node/target", "picocli", "logback", "strata-query-api")) {
            assertFalse(classpath.contains(forbidden), forbidden + " on the application's classpath: " + classpath);
        }
        Path pconf = tmp.resolve("parent");
        Files.createDirectories(pconf);
        Files.writeString(pconf.resolve("netdata.conf"), "[global]\n\thostname = parent\n[db]\n\tstorage tiers = 1\n"
                + "[web]\n\tbind to = 127.0.0.1:0\n"
                + "[directories]\n\tcache = " + pconf.resolve("cache") + "\n\tlib = " + pconf.resolve("lib") + "\n");
        Files.writeString(pconf.resolve("stream.conf"), "[stream]\n\tenabled = no\n\n[" + KEY + "]\n\tenabled = yes\n"
                + "\tallow from = *\n");
        try (StrataNode parent = NodeRoles.start(NodeConfig.load(pconf), null)) {
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            for (String flag : System.getProperty("strata.jvm.flags", "").trim().split("\\s+")) {
                if (!flag.isEmpty()) {
                    cmd.add(flag);
                }
            }
            cmd.addAll(List.of("-Xmx256m", "-cp", classpath, MicrometerChildExample.class.getName(),
                    "127.0.0.1:" + parent.listening().get(0).getPort(), KEY, tmp.resolve("app").toString(), "120"));
            Path log = tmp.resolve("app.log");
            Process app = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                MetadataStore meta = parent.engine().metadata();
                Set<String> want = Set.of("example.orders_placed_region_eu", "example.queue_size",
                        "example.http_requests");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                Set<String> charts = new HashSet<>();
                long points = 0;
                while (System.nanoTime() < deadline && app.isAlive()) {
                    charts.clear();
                    points = 0;
                    for (int h = 0; h < meta.hosts().size(); h++) {
                        if (!meta.host(h).hostname().equals("micrometer-example")) {
                            continue;
                        }
                        for (int c : meta.charts(h)) {
                            charts.add(meta.chart(c).id());
                            if (want.contains(meta.chart(c).id())) {
                                for (int m : meta.metrics(c)) {
                                    long[] n = {0};
                                    parent.engine().queryTier0(m, 0, Long.MAX_VALUE / 2, (t, sn) -> n[0]++);
                                    points += n[0];
                                }
                            }
                        }
                    }
                    if (charts.containsAll(want) && points >= 10) {
                        break;
                    }
                    Thread.sleep(200);
                }
                String output = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
                assertTrue(charts.containsAll(want), "charts of the application on the parent: " + charts
                        + "; the application's output:\n" + output);
                assertTrue(points >= 10, "points stored by the parent: " + points + "; output:\n" + output);
            } finally {
                app.destroy();
                if (!app.waitFor(20, TimeUnit.SECONDS)) {
                    app.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
    }

    /**
     * The artifact, its runtime dependencies (written by its build), and the directory of the
     * example's class: nothing of the node.
     */
    private static String applicationClasspath() throws Exception {
        Path jar = Path.of(System.getProperty("strata.micrometer.jar"));
        Path deps = Path.of(System.getProperty("strata.micrometer.classpath"));
        assertTrue(Files.exists(jar), "build strata-micrometer first: " + jar);
        assertTrue(Files.exists(deps), "build strata-micrometer first: " + deps);
        Path example = Path.of(MicrometerChildExample.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return jar + File.pathSeparator + Files.readString(deps, StandardCharsets.UTF_8).trim() + File.pathSeparator
                + example;
    }
}
