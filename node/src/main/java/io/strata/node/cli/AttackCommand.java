package io.strata.node.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.node.attack.LatencyPoller;
import io.strata.node.attack.PortAttack;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code strata attack}: runs the port attacks of {@link PortAttack} against a node on this machine
 * (loopback only) and prints what the node did to each: how many connections it closed, how fast,
 * what it answered. With {@code --poll-url}, a {@link LatencyPoller} plays a legitimate client beside
 * the attacks: its p50/p99 quiet and during each attack, and the ratio of the attack's p99 to the
 * quiet one.
 */
@Command(name = "attack", mixinStandardHelpOptions = true,
        description = "Attack a node's port on loopback (idle, slowloris, pipelining non-readers, reconnect storm)"
                + " and report what it did.")
public final class AttackCommand implements Callable<Integer> {

    @Option(names = "--target", required = true, paramLabel = "127.0.0.1:PORT", description = "The node's port.")
    String target;
    @Option(names = "--idle", defaultValue = "1000", description = "Connections that say nothing. Default ${DEFAULT-VALUE}.")
    int idle;
    @Option(names = "--slowloris", defaultValue = "200",
            description = "Connections sending a byte a second, each of HTTP and STREAM. Default ${DEFAULT-VALUE}.")
    int slowloris;
    @Option(names = "--pipeliners", defaultValue = "20",
            description = "Clients pipelining /api/v1/data requests without reading. Default ${DEFAULT-VALUE}.")
    int pipeliners;
    @Option(names = "--not-reading-seconds", defaultValue = "70",
            description = "How long the pipelining clients read nothing (more than the node's disconnect idle"
                    + " clients after seconds). Default ${DEFAULT-VALUE}.")
    int notReadingSeconds;
    @Option(names = "--storm-children", defaultValue = "100",
            description = "Synthetic children reconnecting every second. Default ${DEFAULT-VALUE}.")
    int stormChildren;
    @Option(names = "--storm-seconds", defaultValue = "20", description = "Length of the storm. Default ${DEFAULT-VALUE}.")
    int stormSeconds;
    @Option(names = "--wait-seconds", defaultValue = "90",
            description = "Longest wait for the node to close one attack's connections. Default ${DEFAULT-VALUE}.")
    int waitSeconds;
    @Option(names = "--host", defaultValue = "localhost",
            description = "The host (hostname or machine GUID) whose system.cpu the pipelining clients ask for."
                    + " Default ${DEFAULT-VALUE}.")
    String host;
    @Option(names = "--api-key", defaultValue = "11111111-2222-3333-4444-555555555555", description = "For the storm.")
    String apiKey;
    @Option(names = "--source-addresses", defaultValue = "8",
            description = "Loopback source addresses 127.0.0.10.. to spread connections over. Default ${DEFAULT-VALUE}.")
    int sources;
    @Option(names = "--poll-url", paramLabel = "PATH",
            description = "A polling client: the path (on the target) of a query of a real chart, e.g."
                    + " /host/CHILD/api/v1/data?chart=system.cpu&after=-60&points=60; its latencies are measured"
                    + " quiet (before the attacks) and during each attack.")
    String pollPath;
    @Option(names = "--poll-interval", defaultValue = "50", paramLabel = "MS",
            description = "Pause between two polls, milliseconds. Default ${DEFAULT-VALUE}.")
    int pollIntervalMillis;
    @Option(names = "--quiet-seconds", defaultValue = "30",
            description = "How long the poller measures before the attacks (after a 3 s warm-up not counted)."
                    + " Default ${DEFAULT-VALUE}.")
    int quietSeconds;
    @Option(names = "--json", paramLabel = "FILE", description = "Also write the figures as JSON to FILE.")
    Path json;

    @Override
    public Integer call() throws Exception {
        int colon = target.lastIndexOf(':');
        InetSocketAddress t = new InetSocketAddress(InetAddress.getByName(target.substring(0, colon)),
                Integer.parseInt(target.substring(colon + 1)));
        if (!t.getAddress().isLoopbackAddress()) {
            System.err.println("strata attack: only loopback targets (" + target + " is not)");
            return 2;
        }
        if (pollPath != null && !pollPath.startsWith("/")) {
            System.err.println("strata attack: --poll-url is a path on the target, starting with /");
            return 2;
        }
        Duration wait = Duration.ofSeconds(waitSeconds);
        ObjectNode out = JSON.createObjectNode();
        out.put("target", target);
        ArrayNode phases = out.putArray("attacks");
        LatencyPoller poller = null;
        LatencyPoller.Window quiet = null;
        List<LatencyPoller.Window> during = new ArrayList<>();
        try {
            if (pollPath != null) {
                URI uri = URI.create("http://" + target + pollPath);
                // bounded: the quiet window, every attack's longest wait, the storm and the pipeliners' silence
                Duration maxRun = Duration.ofSeconds(3 + quietSeconds + 5L * waitSeconds + stormSeconds
                        + notReadingSeconds + 600);
                poller = new LatencyPoller(uri, Duration.ofMillis(pollIntervalMillis), maxRun).start();
                // the first polls open the connection and warm the server's code up: not counted
                Thread.sleep(3_000);
                poller.window();
                Thread.sleep(quietSeconds * 1000L);
                quiet = poller.window();
                System.out.println("poller quiet: " + quiet);
                out.set("pollerQuiet", window(quiet, null));
            }
            try (PortAttack a = new PortAttack(t, 10, sources)) {
                during.add(phase(phases, poller, quiet, a.idle(idle, wait)));
                during.add(phase(phases, poller, quiet, a.slowloris(slowloris, false, wait)));
                during.add(phase(phases, poller, quiet, a.slowloris(slowloris, true, wait)));
                during.add(phase(phases, poller, quiet, a.pipelinersThatNeverRead(pipeliners, 200,
                        "/host/" + host + "/api/v1/data?chart=system.cpu&after=-600&points=600&group=median",
                        Duration.ofSeconds(notReadingSeconds), wait)));
                during.add(phase(phases, poller, quiet,
                        a.reconnectStorm(stormChildren, apiKey, Duration.ofSeconds(stormSeconds), 1)));
            }
        } finally {
            if (poller != null) {
                poller.close();
            }
        }
        if (poller != null) {
            LatencyPoller.Window attack = LatencyPoller.Window.merge(during);
            System.out.printf(Locale.ROOT, "poller: quiet p50 %.1f ms p99 %.1f ms; during the attacks p50 %.1f ms"
                            + " p99 %.1f ms; p99 ratio %.2fx (goal <= 10x); %d polls failed%n", quiet.p50Millis(),
                    quiet.p99Millis(), attack.p50Millis(), attack.p99Millis(), attack.p99Ratio(quiet),
                    poller.totalFailures());
            out.set("pollerDuringAttacks", window(attack, quiet));
            out.put("pollsFailed", poller.totalFailures());
        }
        if (json != null) {
            JSON.writerWithDefaultPrettyPrinter().writeValue(json.toFile(), out);
        }
        return 0;
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Prints one attack's figures (and the poller's during it), adds them to the JSON; the poller's window. */
    private static LatencyPoller.Window phase(ArrayNode phases, LatencyPoller poller, LatencyPoller.Window quiet,
            PortAttack.Figures f) {
        System.out.println(f);
        ObjectNode p = phases.addObject();
        p.put("attack", f.attack().strip());
        p.put("launched", f.launched());
        p.put("connected", f.connected());
        p.put("closedByServer", f.closedByServer());
        p.put("stillOpen", f.stillOpen());
        p.put("secondsToCloseMedian", f.secondsToCloseMedian());
        p.put("secondsToCloseMax", f.secondsToCloseMax());
        p.put("bytesReceived", f.bytesReceived());
        ObjectNode replies = p.putObject("replies");
        f.replies().forEach(replies::put);
        if (poller == null) {
            return null;
        }
        LatencyPoller.Window w = poller.window();
        System.out.printf(Locale.ROOT, "  poller during %s: %s; p99 %.2fx quiet%n", f.attack().strip(), w,
                w.p99Ratio(quiet));
        p.set("poller", window(w, quiet));
        return w;
    }

    private static ObjectNode window(LatencyPoller.Window w, LatencyPoller.Window quiet) {
        ObjectNode n = JSON.createObjectNode();
        n.put("polls", w.polls());
        n.put("failed", w.failures());
        n.put("p50Millis", w.p50Millis());
        n.put("p99Millis", w.p99Millis());
        n.put("maxMillis", w.maxMillis());
        if (quiet != null) {
            n.put("p99RatioToQuiet", w.p99Ratio(quiet));
        }
        ArrayNode samples = n.putArray("failureSamples");
        w.failureSamples().forEach(samples::add);
        return n;
    }
}
