package io.strata.it.docker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.Ports;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.ComposeContainer;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.ContainerState;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.utility.DockerImageName;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * docker/Dockerfile and docker/compose.yaml as a user runs them: the image is built from the
 * sources, the Compose cluster (2 parents forwarding to each other, 3 children) starts with the
 * parents published on 127.0.0.1; every node runs as the image's non-root user with its data in its
 * volume; both parents hold every child; parent-a is killed (SIGKILL) and parent-b holds every
 * second the children collect; parent-a, started again on its volume, catches up from its peer,
 * and then both parents answer the same queries byte for byte, with a value wherever the child
 * itself has one. Skipped, with the reason printed, where no Docker engine is reachable (on CI
 * machines without Docker, .ci/run provides Podman's Docker-compatible API: docker/podman-ci.sh).
 */
class ComposeClusterIT {

    private static final List<String> CHILDREN = List.of("child-1", "child-2", "child-3");
    private static final List<String> SERVICES = List.of("parent-a", "parent-b", "child-1", "child-2", "child-3");
    /** Where the docker CLI has no compose plugin, Compose runs from this image. */
    private static final String COMPOSE_IMAGE = "docker:25.0.5";
    /** The image the test builds, without its tag (the names are reused by every run). */
    private static final String IMAGE_NAME = "strata/node-it";
    /** Charts of the children's /proc collection compared second by second (as the netns topology test). */
    private static final List<String> COMPARED = List.of("system.uptime", "system.cpu", "system.load", "system.ram");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The last lines each container printed: the story of a failure. */
    private final Map<String, Deque<String>> logs = new LinkedHashMap<>();

    @BeforeAll
    static void dockerEngineOrSkip() {
        boolean available;
        String why = "DockerClientFactory.instance().isDockerAvailable() is false";
        try {
            available = DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            available = false;
            why = e.toString();
        }
        if (!available) {
            String reason = "no Docker engine is reachable (" + why + "); docker/Dockerfile and docker/compose.yaml"
                    + " are not exercised on this machine";
            System.out.println("[ComposeClusterIT] SKIPPED: " + reason);
            Assumptions.abort(reason);
        }
    }

    @Test
    @Timeout(value = 40, unit = TimeUnit.MINUTES)
    void bothParentsHoldEveryChildTheSurvivorTakesOverAndTheKilledParentCatchesUp() throws Exception {
        Path root = repositoryRoot();
        String image = buildImage(root);
        int portA = freePort();
        int portB = freePort();
        String dockerHost = DockerClientFactory.instance().dockerHostIpAddress();
        boolean localEngine = isLoopback(dockerHost);
        // a local engine publishes on 127.0.0.1 (compose.yaml's default): every test connection stays on loopback
        String host = localEngine ? "127.0.0.1" : dockerHost;
        java.io.File composeFile = root.resolve("docker/compose.yaml").toFile();
        // Compose V2 of the local docker CLI when it has it; a container holding it otherwise
        ComposeContainer compose = (localComposeWorks() ? new ComposeContainer("strata-it", composeFile)
                : new ComposeContainer(DockerImageName.parse(COMPOSE_IMAGE), "strata-it", composeFile))
                .withPull(false)
                .withEnv("STRATA_IMAGE", image)
                .withEnv("STRATA_PORT_A", String.valueOf(portA))
                .withEnv("STRATA_PORT_B", String.valueOf(portB))
                // a remote engine publishes on its own interfaces; 127.0.0.1 there is not reachable from here
                .withEnv("STRATA_BIND", localEngine ? "127.0.0.1" : "0.0.0.0");
        for (String s : SERVICES) {
            Deque<String> lines = new ArrayDeque<>();
            logs.put(s, lines);
            compose.withLogConsumer(s + "-1", frame -> {
                synchronized (lines) {
                    lines.addLast(frame.getUtf8StringWithoutLineEnding());
                    if (lines.size() > 200) {
                        lines.removeFirst();
                    }
                }
            });
        }
        String parentA = "http://" + host + ":" + portA + "/";
        String parentB = "http://" + host + ":" + portB + "/";
        long began = System.nanoTime();
        compose.start();
        try {
            Map<String, ContainerState> containers = new LinkedHashMap<>();
            for (String s : SERVICES) {
                // Compose v2 names the first container of a service "<service>-1" (child-1 would be taken as one)
                containers.put(s, compose.getContainerByServiceName(s + "-1")
                        .orElseThrow(() -> new AssertionError("compose has no container of " + s)));
            }
            for (Map.Entry<String, ContainerState> e : containers.entrySet()) {
                runsAsTheImageUserOnItsVolume(e.getKey(), e.getValue());
            }
            if (localEngine) {
                for (String parent : List.of("parent-a", "parent-b")) {
                    publishedOnLoopbackOnly(parent, containers.get(parent));
                }
            }
            System.out.println("[ComposeClusterIT] every node runs as user strata with its data in its volume; the"
                    + " parents are published on " + host);
            for (String parent : List.of(parentA, parentB)) {
                waitForMirroredHosts(parent, Duration.ofMinutes(3));
            }
            System.out.printf(Locale.ROOT, "[ComposeClusterIT] both parents hold %s (%.0f s after compose up)%n",
                    CHILDREN, (System.nanoTime() - began) / 1e9);

            // the compared window begins while both parents run, a few collected seconds in
            long t0 = System.currentTimeMillis() / 1000;
            for (String c : CHILDREN) {
                waitForSecond(parentB, c, t0 + 5, Duration.ofMinutes(1));
            }
            long newestBeforeKill = Long.MAX_VALUE;
            for (String c : CHILDREN) {
                newestBeforeKill = Math.min(newestBeforeKill, newestUptimeSecond(parentB, c));
            }
            String idA = containers.get("parent-a").getContainerId();
            DockerClientFactory.instance().client().killContainerCmd(idA).withSignal("KILL").exec();
            long killed = System.nanoTime();

            // what parent-b received from parent-a's forwarding stopped with parent-a: newer seconds
            // mean the children themselves now stream to parent-b
            long wanted = newestBeforeKill + 15;
            for (String c : CHILDREN) {
                waitForSecond(parentB, c, wanted, Duration.ofMinutes(2));
            }
            System.out.printf(Locale.ROOT, "[ComposeClusterIT] after SIGKILL of parent-a, parent-b holds every child's"
                    + " seconds up to %d and later (%.1f s after the kill)%n", wanted,
                    (System.nanoTime() - killed) / 1e9);

            // parent-a again, on its volume: it must fetch the seconds it missed from parent-b
            DockerClientFactory.instance().client().startContainerCmd(idA).exec();
            long restarted = System.nanoTime();
            long t1 = System.currentTimeMillis() / 1000 - 2;
            waitForMirroredHosts(parentA, Duration.ofMinutes(2));
            int values = 0;
            for (String c : CHILDREN) {
                values += waitUntilBothParentsAnswerAsTheChild(containers.get(c), c, parentA, parentB, t0, t1,
                        Duration.ofMinutes(3));
            }
            System.out.printf(Locale.ROOT, "[ComposeClusterIT] parent-a, started again, caught up with (%d, %d] from"
                    + " parent-b in %.1f s: both parents answer byte for byte, %d values of the children compared"
                    + " with the children's own, none missing%n", t0, t1, (System.nanoTime() - restarted) / 1e9,
                    values);
            assertTrue(values >= CHILDREN.size() * (t1 - t0 - 5), "too few values compared: " + values);
        } finally {
            compose.stop();
        }
    }

    /** The node runs as the image's user (not root), and its data directory is its own Compose volume. */
    private static void runsAsTheImageUserOnItsVolume(String service, ContainerState c) throws Exception {
        InspectContainerResponse info = DockerClientFactory.instance().client()
                .inspectContainerCmd(c.getContainerId()).exec();
        assertEquals("strata", info.getConfig().getUser(), service + "'s user");
        boolean onVolume = info.getMounts() != null && info.getMounts().stream().anyMatch(m ->
                m.getDestination() != null && "/var/lib/strata".equals(m.getDestination().getPath())
                        && m.getName() != null && m.getName().endsWith(service));
        assertTrue(onVolume, service + " has no volume of its own on /var/lib/strata: " + info.getMounts());
        // the JVM (PID 1) itself, and the directories it made in the volume
        Container.ExecResult r = c.execInContainer("sh", "-c",
                "stat -c %u /proc/1; for i in $(seq 300); do [ -d /var/lib/strata/cache ] && break; sleep 0.2; done;"
                        + " stat -c %U /var/lib/strata/cache");
        String[] out = r.getStdout().strip().split("\\s+");
        assertTrue(r.getExitCode() == 0 && out.length == 2, service + ": " + r.getStdout() + r.getStderr());
        assertNotEquals("0", out[0], service + "'s node runs as root");
        assertEquals("strata", out[1], service + "'s data directory belongs to");
    }

    /** A parent's port is published on 127.0.0.1 only. */
    private static void publishedOnLoopbackOnly(String service, ContainerState c) {
        InspectContainerResponse info = DockerClientFactory.instance().client()
                .inspectContainerCmd(c.getContainerId()).exec();
        Ports.Binding[] bindings = info.getNetworkSettings().getPorts().getBindings().get(ExposedPort.tcp(19999));
        assertTrue(bindings != null && bindings.length > 0, service + " publishes no port");
        for (Ports.Binding b : bindings) {
            assertEquals("127.0.0.1", b.getHostIp(), service + " is published on " + b);
        }
    }

    /**
     * Until both parents answer the child's queries of (from, until] with the same bytes, with a
     * value wherever the child itself has one (equal to it); returns the values compared.
     */
    private int waitUntilBothParentsAnswerAsTheChild(ContainerState child, String name, String parentA,
                                                     String parentB, long from, long until, Duration timeout)
            throws Exception {
        List<String> charts = new ArrayList<>();
        JsonNode has = get(parentB + "host/" + name + "/api/v1/charts").get("charts");
        for (String chart : COMPARED) {
            if (has.has(chart)) {
                charts.add(chart);
            }
        }
        assertTrue(charts.contains("system.uptime"), name + " has no system.uptime on parent-b");
        long deadline = System.nanoTime() + timeout.toNanos();
        int n = 0;
        for (String chart : charts) {
            String query = "api/v1/data?chart=" + chart + "&after=" + from + "&before=" + until + "&points="
                    + (until - from) + "&group=average&format=json&options=seconds%7Cunaligned";
            JsonNode truth = JSON.readTree(childGet(child, "/" + query));
            while (true) {
                String a;
                String b;
                String missing;
                try {
                    a = getText(parentA + "host/" + name + "/" + query);
                    b = getText(parentB + "host/" + name + "/" + query);
                    missing = missingOrDifferent(truth, JSON.readTree(b));
                } catch (IOException e) {
                    // parent-a, just started, has the child's charts only once the child or its peer sends them
                    a = e.toString();
                    b = "";
                    missing = null;
                }
                if (a.equals(b) && missing == null) {
                    n += countValues(truth);
                    break;
                }
                if (System.nanoTime() > deadline) {
                    fail(name + " " + chart + " of (" + from + ", " + until + "]: "
                            + (a.equals(b) ? "" : "parent-a answers\n" + a + "\nparent-b answers\n" + b + "\n")
                            + (missing == null ? "" : "parent-b " + missing + "\n") + logTails());
                }
                Thread.sleep(1_000);
            }
        }
        return n;
    }

    /** null when {@code got} has the child's every value (within 1e-6), else what is missing or different. */
    private static String missingOrDifferent(JsonNode truth, JsonNode got) {
        Map<Long, JsonNode> byTime = new LinkedHashMap<>();
        for (JsonNode row : got.get("data")) {
            byTime.put(row.get(0).asLong(), row);
        }
        for (JsonNode row : truth.get("data")) {
            JsonNode other = byTime.get(row.get(0).asLong());
            for (int j = 1; j < row.size(); j++) {
                if (row.get(j).isNull()) {
                    continue; // a second the child's own collection missed
                }
                double t = row.get(j).asDouble();
                if (other == null || j >= other.size() || other.get(j).isNull()) {
                    return "has no value at " + row.get(0).asLong() + " column " + j + " (the child has " + t + ")";
                }
                double g = other.get(j).asDouble();
                if (Math.abs(t - g) > Math.max(1e-9, Math.abs(t) * 1e-6)) {
                    return "has " + g + " at " + row.get(0).asLong() + " column " + j + ", the child " + t;
                }
            }
        }
        return null;
    }

    private static int countValues(JsonNode answer) {
        int n = 0;
        for (JsonNode row : answer.get("data")) {
            for (int j = 1; j < row.size(); j++) {
                n += row.get(j).isNull() ? 0 : 1;
            }
        }
        return n;
    }

    /**
     * A GET of the child's own API from inside its container (a child publishes no port): bash's
     * /dev/tcp, HTTP/1.0 so that the node closes the connection after its answer.
     */
    private static String childGet(ContainerState child, String path) throws Exception {
        Container.ExecResult r = child.execInContainer("bash", "-c",
                "exec 3<>/dev/tcp/127.0.0.1/19999"
                        + " && printf 'GET %s HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' \"$0\" >&3"
                        + " && timeout 30 cat <&3", path);
        String out = r.getStdout();
        int body = out.indexOf("\r\n\r\n");
        if (r.getExitCode() != 0 || body < 0 || !out.startsWith("HTTP/1.") || !out.substring(0, out.indexOf('\r'))
                .contains(" 200")) {
            throw new IOException("the child answered " + path + " with " + out + r.getStderr());
        }
        return out.substring(body + 4);
    }

    private static String buildImage(Path root) throws Exception {
        long t0 = System.nanoTime();
        // Names, kept, for the image and for the stages it copies from (the node jar with its Maven
        // dependencies, the dashboard): the engine keeps the layers of named images as the next
        // build's cache (those of an unnamed stage would be removed with what they made).
        for (String stage : List.of("build", "dashboard")) {
            replace(IMAGE_NAME + ":" + stage,
                    context(root, new ImageFromDockerfile(IMAGE_NAME + ":" + stage, false).withTarget(stage)));
        }
        String name = replace(IMAGE_NAME + ":latest",
                context(root, new ImageFromDockerfile(IMAGE_NAME + ":latest", false)));
        System.out.printf(Locale.ROOT, "[ComposeClusterIT] built %s in %.0f s%n", name, (System.nanoTime() - t0) / 1e9);
        return name;
    }

    /**
     * Builds the image under its name and removes the image the name had before, when the build
     * made another: with it go its layers that nothing else uses (those of the sources it was built
     * from), so that runs on one machine do not pile up images.
     */
    private static String replace(String name, ImageFromDockerfile image) throws Exception {
        String before = imageId(name);
        String built = image.get();
        String after = imageId(name);
        if (before != null && !before.equals(after)) {
            try {
                DockerClientFactory.instance().client().removeImageCmd(before).exec();
            } catch (RuntimeException e) {
                System.out.println("[ComposeClusterIT] kept the image " + name + " had before (" + before + "): " + e);
            }
        }
        return built;
    }

    private static String imageId(String name) {
        try {
            return DockerClientFactory.instance().client().inspectImageCmd(name).exec().getId();
        } catch (NotFoundException e) {
            return null;
        }
    }

    /** The context the Dockerfile needs (poms and sources), never the host's target/ directories. */
    private static ImageFromDockerfile context(Path root, ImageFromDockerfile image) {
        image.withDockerfilePath("docker/Dockerfile");
        image.withFileFromPath("pom.xml", root.resolve("pom.xml"));
        image.withFileFromPath("jvm.properties", root.resolve("jvm.properties"));
        image.withFileFromPath("config", root.resolve("config"));
        // every module's pom (Maven reads the whole reactor), the sources of the node and what it builds on
        for (String module : List.of("test-support", "engine", "streaming", "replication", "micrometer", "query-api",
                "exporting", "node", "it-tests", "jmh", "docker")) {
            image.withFileFromPath(module + "/pom.xml", root.resolve(module).resolve("pom.xml"));
        }
        for (String module : List.of("test-support", "engine", "streaming", "replication", "micrometer", "query-api",
                "exporting", "node")) {
            image.withFileFromPath(module + "/src", root.resolve(module).resolve("src"));
        }
        image.withFileFromPath("docker/Dockerfile", root.resolve("docker/Dockerfile"));
        image.withFileFromPath("docker/entrypoint.sh", root.resolve("docker/entrypoint.sh"));
        return image;
    }

    private void waitForMirroredHosts(String parent, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> seen = List.of();
        while (System.nanoTime() < deadline) {
            try {
                List<String> hosts = new ArrayList<>();
                get(parent + "api/v1/info").get("mirrored_hosts").forEach(h -> hosts.add(h.asText()));
                seen = hosts;
                if (hosts.containsAll(CHILDREN)) {
                    return;
                }
            } catch (IOException e) {
                seen = List.of(e.toString());
            }
            Thread.sleep(500);
        }
        fail(parent + " does not hold " + CHILDREN + " after " + timeout + ": " + seen + "\n" + logTails());
    }

    private void waitForSecond(String parent, String child, long second, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        long newest = -1;
        while (System.nanoTime() < deadline) {
            try {
                newest = newestUptimeSecond(parent, child);
                if (newest >= second) {
                    return;
                }
            } catch (IOException e) {
                // the child is moving over; ask again
            }
            Thread.sleep(500);
        }
        fail(parent + " has " + child + "'s system.uptime only up to " + newest + ", not " + second
                + ": the child did not fail over\n" + logTails());
    }

    /** The newest second of a child's system.uptime with a value on a parent, -1 when none. */
    private static long newestUptimeSecond(String parent, String child) throws IOException, InterruptedException {
        JsonNode rows = get(parent + "host/" + child + "/api/v1/data?chart=system.uptime&after=-60&points=60"
                + "&group=average&format=json&options=seconds").get("data");
        long newest = -1;
        for (JsonNode row : rows) {
            if (row.size() > 1 && !row.get(1).isNull()) {
                newest = Math.max(newest, row.get(0).asLong());
            }
        }
        return newest;
    }

    private static JsonNode get(String url) throws IOException, InterruptedException {
        return JSON.readTree(getText(url));
    }

    private static String getText(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(url + " answered " + r.statusCode() + ": " + r.body());
        }
        return r.body();
    }

    private String logTails() {
        StringBuilder out = new StringBuilder();
        logs.forEach((service, lines) -> {
            out.append("---- ").append(service).append('\n');
            synchronized (lines) {
                lines.stream().skip(Math.max(0, lines.size() - 30)).forEach(l -> out.append(l).append('\n'));
            }
        });
        return out.toString();
    }

    /** The repository root: failsafe runs in it-tests/. */
    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("docker/compose.yaml")) && Files.isRegularFile(p.resolve("mvnw"))) {
                return p;
            }
        }
        throw new IllegalStateException("no repository root (with docker/compose.yaml) above " + dir);
    }

    /** Whether the local docker CLI has Compose V2. */
    private static boolean localComposeWorks() {
        try {
            Process p = new ProcessBuilder("docker", "compose", "version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
