package io.strata.it.docker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.ComposeContainer;
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

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * docker/Dockerfile and docker/compose.yaml as a user runs them: the image is built from the
 * sources, the Compose cluster (2 parents forwarding to each other, 3 children) starts, both
 * parents hold every child, then parent-a is killed (SIGKILL) and the children's data keeps
 * arriving at parent-b. Skipped, with the reason printed, where no Docker engine is reachable.
 */
class ComposeClusterIT {

    private static final List<String> CHILDREN = List.of("child-1", "child-2", "child-3");
    private static final List<String> SERVICES = List.of("parent-a", "parent-b", "child-1", "child-2", "child-3");
    /** Where the docker CLI has no compose plugin, Compose runs from this image. */
    private static final String COMPOSE_IMAGE = "docker:25.0.5";
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
    void bothParentsHoldEveryChildAndTheSurvivorTakesOverWhenOneIsKilled() throws Exception {
        Path root = repositoryRoot();
        String image = buildImage(root);
        int portA = freePort();
        int portB = freePort();
        String dockerHost = DockerClientFactory.instance().dockerHostIpAddress();
        boolean localEngine = isLoopback(dockerHost);
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
        String parentA = "http://" + dockerHost + ":" + portA + "/";
        String parentB = "http://" + dockerHost + ":" + portB + "/";
        compose.start();
        try {
            for (String parent : List.of(parentA, parentB)) {
                waitForMirroredHosts(parent, Duration.ofMinutes(3));
            }
            System.out.println("[ComposeClusterIT] both parents hold " + CHILDREN);

            long newestBeforeKill = Long.MAX_VALUE;
            for (String c : CHILDREN) {
                newestBeforeKill = Math.min(newestBeforeKill, newestUptimeSecond(parentB, c));
            }
            ContainerState a = compose.getContainerByServiceName("parent-a")
                    .orElseThrow(() -> new AssertionError("compose has no container of parent-a"));
            DockerClientFactory.instance().client().killContainerCmd(a.getContainerId()).withSignal("KILL").exec();
            long killed = System.nanoTime();

            // what parent-b received from parent-a's forwarding stopped with parent-a: newer seconds
            // mean the children themselves now stream to parent-b
            long wanted = newestBeforeKill + 15;
            for (String c : CHILDREN) {
                waitForSecond(parentB, c, wanted, Duration.ofMinutes(2));
            }
            System.out.printf(Locale.ROOT, "[ComposeClusterIT] after SIGKILL of parent-a, parent-b holds every child's"
                    + " seconds up to %d and later (%.1f s after the kill)%n", wanted, (System.nanoTime() - killed) / 1e9);
        } finally {
            compose.stop();
        }
    }

    private static String buildImage(Path root) throws Exception {
        // the context the Dockerfile needs (poms and sources), never the host's target/ directories
        ImageFromDockerfile image = new ImageFromDockerfile("strata/node-it:" + Long.toHexString(System.nanoTime()), true)
                .withDockerfilePath("docker/Dockerfile");
        image.withFileFromPath("pom.xml", root.resolve("pom.xml"));
        for (String module : List.of("engine", "streaming", "replication", "query-api", "node", "it-tests", "jmh",
                "docker")) {
            image.withFileFromPath(module + "/pom.xml", root.resolve(module).resolve("pom.xml"));
        }
        for (String module : List.of("engine", "streaming", "replication", "query-api", "node")) {
            image.withFileFromPath(module + "/src", root.resolve(module).resolve("src"));
        }
        image.withFileFromPath("docker/Dockerfile", root.resolve("docker/Dockerfile"));
        image.withFileFromPath("docker/entrypoint.sh", root.resolve("docker/entrypoint.sh"));
        long t0 = System.nanoTime();
        String name = image.get();
        System.out.printf(Locale.ROOT, "[ComposeClusterIT] built %s in %.0f s%n", name, (System.nanoTime() - t0) / 1e9);
        return name;
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
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(url + " answered " + r.statusCode() + ": " + r.body());
        }
        return JSON.readTree(r.body());
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
