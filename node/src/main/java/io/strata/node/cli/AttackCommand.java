package io.strata.node.cli;

import io.strata.node.attack.PortAttack;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * {@code strata attack}: runs the port attacks of {@link PortAttack} against a node on this machine
 * (loopback only) and prints what the node did to each: how many connections it closed, how fast,
 * what it answered.
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

    @Override
    public Integer call() throws Exception {
        int colon = target.lastIndexOf(':');
        InetSocketAddress t = new InetSocketAddress(InetAddress.getByName(target.substring(0, colon)),
                Integer.parseInt(target.substring(colon + 1)));
        if (!t.getAddress().isLoopbackAddress()) {
            System.err.println("strata attack: only loopback targets (" + target + " is not)");
            return 2;
        }
        Duration wait = Duration.ofSeconds(waitSeconds);
        try (PortAttack a = new PortAttack(t, 10, sources)) {
            System.out.println(a.idle(idle, wait));
            System.out.println(a.slowloris(slowloris, false, wait));
            System.out.println(a.slowloris(slowloris, true, wait));
            System.out.println(a.pipelinersThatNeverRead(pipeliners, 200,
                    "/host/" + host + "/api/v1/data?chart=system.cpu&after=-600&points=600&group=median",
                    Duration.ofSeconds(notReadingSeconds), wait));
            System.out.println(a.reconnectStorm(stormChildren, apiKey, Duration.ofSeconds(stormSeconds), 1));
        }
        return 0;
    }
}
