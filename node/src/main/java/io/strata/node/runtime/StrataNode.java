package io.strata.node.runtime;

import io.strata.streaming.child.MachineGuid;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.node.config.NodeConfig;
import io.strata.replication.receiver.ReplicationPlanner;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.receiver.ReceiverContext;
import io.strata.streaming.receiver.ReceiverLimits;
import io.strata.streaming.receiver.ReceiverRegistry;
import io.strata.streaming.receiver.ReceiverStats;
import io.strata.streaming.receiver.HttpPeerLookup;
import java.time.Duration;
import io.strata.streaming.server.HttpPipelineInstaller;
import io.strata.streaming.server.StreamServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import io.netty.handler.ssl.SslContext;
import io.strata.engine.io.DiskFullException;
import io.strata.query.ApiContext;
import io.strata.query.ApiHttpHandlers;
import io.strata.replication.forward.Forwarding;
import io.strata.streaming.server.TlsContexts;
import io.strata.engine.thread.StrataThreads;
import io.strata.query.http.ApiServices;
import io.strata.query.http.HostRemoval;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.EventExecutorGroup;
import java.util.EnumSet;
import io.strata.streaming.server.WebPermission;
import io.strata.streaming.server.Listener;
import io.strata.query.http.HttpPolicy;
import io.strata.query.http.HttpAccess;
import io.strata.exporting.HostOwnership;
import io.strata.exporting.Exporting;
import io.strata.query.http.StreamIngest;
import io.strata.engine.time.Clocks;
import io.strata.node.config.PeerRepairSettings;
import io.strata.replication.peer.HoleRepair;
import io.strata.replication.peer.PeerRangeClient;

/**
 * One running node: its engine, its one port (streams and HTTP), and the roles its configuration
 * gives it (a parent receives streams; a child collects and streams to its parents).
 */
public final class StrataNode implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(StrataNode.class);
    /** The names of the threads that compress HTTP answers: {@code strata-http-gzip-1}, {@code -2}. */
    static final String GZIP_THREADS = "strata-http-gzip";

    /** What this node can speak as a parent: the whole 1.37.1 set, and 2.x's BEGIN2/SET2 with IEEE754 numbers and ZSTD. */
    public static final long PARENT_CAPABILITIES = Capabilities.V1 | Capabilities.V2 | Capabilities.VN
            | Capabilities.VCAPS | Capabilities.HLABELS | Capabilities.CLAIM | Capabilities.CLABELS
            | Capabilities.COMPRESSION | Capabilities.FUNCTIONS | Capabilities.REPLICATION | Capabilities.BINARY
            | Capabilities.INTERPOLATED_IEEE754 | Capabilities.ZSTD;

    private final NodeConfig config;
    private final StorageEngine engine;
    private final UUID machineGuid;
    private final StreamServer server;
    private final ReceiverStats stats = new ReceiverStats();
    private final List<InetSocketAddress> listening = new ArrayList<>();
    private final ScheduledExecutorService housekeeping;
    private final List<Closeable> roles = new ArrayList<>();
    private final Forwarding forwarding;
    private final HttpPeerLookup peerLookup;
    private final PrometheusMeterRegistry meters;
    private final NodeMeters nodeMeters;
    private final StreamAuthorizer authorizer;

    private StrataNode(NodeConfig config, StorageEngine engine, UUID machineGuid, HttpPipelineInstaller http,
                       SslContext tls, PrometheusMeterRegistry meters) {
        this.config = config;
        this.engine = engine;
        this.machineGuid = machineGuid;
        StreamAuthorizer authorizer = this.authorizer = new StreamAuthorizer(config.stream(), config.stream().sender().enableCompression(),
                PARENT_CAPABILITIES, machineGuid.toString(), config.acceptStreamEverySeconds());
        // max hosts per api key counts the hosts stored from before this start, under the key each came with
        authorizer.countStoredHosts(engine.metadata().hosts());
        ReceiverContext rc = new ReceiverContext(engine, authorizer, new ReceiverRegistry(), ReceiverLimits.DEFAULTS,
                stats, ReceiverContext.wallClockMicros(), receiveTimeoutSeconds(config), null);
        // a parent back without the seconds a host lost asks its peers (their query API) what they hold
        // of the host before it replicates it (docs/replication.md, "A parent refilled from its peers")
        this.peerLookup = new HttpPeerLookup(Duration.ofSeconds(2), config.stream().sender().defaultPort());
        rc.registry().setPeerLookup(peerLookup);
        // received hosts whose API-key or machine-GUID section enables the proxy go on to its destination
        this.forwarding = new Forwarding(engine, config.stream().sender());
        // gap filling of every received stream: the replication module's planner, as stream.conf says
        rc = rc.withListener(forwarding).withReplication(ReplicationPlanner.FROM_SETTINGS);
        this.server = new StreamServer(rc, tls, http, Math.max(2, Runtime.getRuntime().availableProcessors()),
                config.web().limits(), config.web().access());
        if (config.isParent()) {
            // a parent keeps every page the disk has not taken yet and stops reading from its
            // children meanwhile: they buffer, and replication fills what they could not hold
            engine.setDirtyPagePolicy(StorageEngine.DirtyPagePolicy.KEEP);
            ReceiverRegistry receivers = rc.registry();
            engine.setDiskBacklogListener((high, waiting, bound) -> {
                receivers.setReadingPaused(high);
                if (high) {
                    LOG.warn("the disk is behind: {} MiB of pages wait for it (bound {} MiB); not reading from the"
                            + " {} received streams until it catches up", waiting >> 20, bound >> 20, receivers.connected());
                } else {
                    LOG.info("the disk caught up ({} MiB of pages wait for it); reading from the received streams again",
                            waiting >> 20);
                }
            });
        }
        this.meters = meters;
        this.nodeMeters = new NodeMeters(meters, stats, rc.registry(), engine);
        this.housekeeping = StrataThreads.newSingleThreadScheduledExecutor(r -> {
            Thread t = StrataThreads.newThread(r, "strata-housekeeping");
            t.setDaemon(true);
            return t;
        });
    }

    /** Opens the engine, binds the port and starts the roles of {@code config}. */
    public static StrataNode start(NodeConfig config, HttpPipelineInstaller http) throws IOException {
        return start(config, http, UnaryOperator.identity());
    }

    /**
     * {@link #start(NodeConfig, HttpPipelineInstaller)} with the engine's configuration as {@code
     * engineConfig} changes it: a test's way to put the engine's files behind a {@code FileIo}
     * of its own (a disk that stalls) or to bound its main cache in bytes. Not a configuration key:
     * nothing but a test in this package calls it.
     */
    static StrataNode start(NodeConfig config, HttpPipelineInstaller http, UnaryOperator<EngineConfig> engineConfig)
            throws IOException {
        for (String w : config.warnings()) {
            LOG.warn(w);
        }
        NodeDirectories.requireWritable(config);
        UUID guid = MachineGuid.loadOrCreate(config.libDir());
        EngineConfig ec = engineConfig.apply(config.engineConfig());
        SslContext tls = config.sslCertificate() == null ? null
                : TlsContexts.server(config.sslCertificate(), config.sslKey());
        StorageEngine engine = StorageEngine.open(ec);
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ApiContext api = null;
        EventExecutorGroup gzipGroup = null;
        if (http == null) {
            // the node's own query API on the same port (Netdata's dashboard from /usr/share/netdata/web)
            ApiContext ctx = ApiContext.create(engine, guid, config.hostname(),
                    ApiContext.defaultWebDirectory(), meters);
            api = ctx;
            ApiServices.of(ctx).queryLimits(config.web().queryLimits());
            EventExecutorGroup gzip = new DefaultEventExecutorGroup(
                    Math.min(2, Runtime.getRuntime().availableProcessors()),
                    StrataThreads.daemonThreadFactory(GZIP_THREADS));
            gzipGroup = gzip;
            http = (p, conn) -> ApiHttpHandlers.install(p, ctx, httpPolicy(config, conn, gzip));
        }
        StrataNode node = new StrataNode(config, engine, guid, http, tls, meters);
        if (api != null) {
            node.roles.add(api::close);
            // /api/v3/stream_info reports the children streaming into this node
            ApiServices.of(api).streamIngest(new StreamIngest() {
                @Override
                public int connectedReceivers() {
                    return node.receivers().connected();
                }

                @Override
                public boolean receiving(UUID host) {
                    return node.receivers().isConnected(host.toString());
                }
            });
            // DELETE /api/v1/manage/host: never a host streaming now; its place under its API key is freed
            ApiServices.of(api).hostRemoval(node::removeHost);
            // GET /host/<guid>/api/v1/replay_chart: the stored past of a host, for the peers that forward it here
            ApiServices.of(api).peerReplay(new PeerReplayEndpoint(engine, node.authorizer, Clocks::wallMillis));
        }
        // stopped after the port's connections are closed (close()): their handlers run on it
        node.gzipGroup = gzipGroup;
        try {
            for (Listener l : config.web().listeners()) {
                node.listening.add(node.server.bind(l));
            }
            node.startHoleRepair();
            if (config.exporting().exports()) {
                node.roles.add(Exporting.start(config.exporting(), engine, guid,
                        node.exportOwnership(), config.libDir().resolve("exporting"), meters));
            }
            node.housekeeping.scheduleWithFixedDelay(node::syncMetadata, 1, 1, TimeUnit.SECONDS);
            node.housekeeping.scheduleWithFixedDelay(node::logReplicationProgress, PROGRESS_SECONDS, PROGRESS_SECONDS,
                    TimeUnit.SECONDS);
            node.housekeeping.scheduleAtFixedRate(node.nodeMeters::sample, 1, 1, TimeUnit.SECONDS);
            LOG.info("node '{}' ({}) started: {}{}", config.hostname(), guid,
                    config.isParent() ? "parent" : "", config.isChild() ? " child" : "");
            return node;
        } catch (IOException | RuntimeException e) {
            node.close();
            throw e;
        }
    }

    /**
     * A parent with peers repairs the holes behind its newest seconds from them ({@code [db] repair holes
     * from peers}; docs/replication.md, "A hole filled from the peers later"), and those no peer
     * filled from the stream it receives their host on.
     */
    private void startHoleRepair() {
        PeerRepairSettings s = config.peerRepair();
        if (!config.isParent() || !s.enabled()) {
            return;
        }
        List<HoleRepair.Peer> peers = PeerParents.of(config.stream(), LOG);
        if (peers.isEmpty()) {
            return;
        }
        HoleRepair.Settings settings = new HoleRepair.Settings(s.windowSeconds(), s.intervalSeconds(),
                HoleRepair.Settings.DEFAULTS.chartsPerRound(), HoleRepair.Settings.DEFAULTS.holesPerRound(),
                HoleRepair.Settings.DEFAULTS.maxAttempts());
        HoleRepair repair = new HoleRepair(engine, machineGuid, peers, new PeerRangeClient(PEER_TIMEOUT), settings,
                Clocks::wallMillis);
        // a hole no peer filled is asked of the host's stream received here (docs/replication.md)
        repair.askStreams(receivers());
        this.holeRepair = repair;
        NodeMeters.holeRepairMeters(meters, repair);
        roles.add(repair);
        repair.start();
    }

    /** Connect and read timeout of a peer's replay answer. */
    private static final Duration PEER_TIMEOUT = Duration.ofSeconds(2);
    private HoleRepair holeRepair;

    /** The repair of holes from peers, or null when this node runs none. */
    public HoleRepair holeRepair() {
        return holeRepair;
    }

    /**
     * How long a received stream may send nothing before it is closed: {@code [stream] timeout seconds}
     * (Netdata 1.37.1's parent uses a fixed 600 s, the same default).
     */
    static int receiveTimeoutSeconds(NodeConfig config) {
        long t = config.stream().sender().timeoutSeconds();
        return (int) Math.max(1, Math.min(86_400, t));
    }

    /** The port's decision on an HTTP connection as the query API takes it. */
    static HttpPolicy httpPolicy(NodeConfig config,
            HttpPipelineInstaller.HttpConnection conn, EventExecutorGroup gzip) {
        EnumSet<HttpAccess> access =
                EnumSet.noneOf(HttpAccess.class);
        for (WebPermission p : conn.permissions()) {
            switch (p) {
                case DASHBOARD -> access.add(HttpAccess.DASHBOARD);
                case REGISTRY -> access.add(HttpAccess.REGISTRY);
                case BADGES -> access.add(HttpAccess.BADGES);
                case MANAGEMENT -> access.add(HttpAccess.MANAGEMENT);
                case NETDATA_CONF -> access.add(HttpAccess.NETDATA_CONF);
                // a STREAM's, and the peer replay's: a peer parent reading a host's past back
                case STREAMING -> access.add(HttpAccess.STREAMING);
            }
        }
        return new HttpPolicy(conn.firstRequestTimeoutSeconds(),
                config.web().idleTimeoutSeconds(), access, conn.redirectToTls(), config.web().gzip(), gzip,
                conn.handshakeDone());
    }

    private static final int PROGRESS_SECONDS = 10;
    private static final int HOUSEKEEPING_STOP_SECONDS = 30;
    private long replayedAtLastReport;
    private long replayStartedNanos;
    private long replayedSinceStart;

    /** While gaps are being filled: how many samples came in by replication, and how fast. */
    private void logReplicationProgress() {
        long replayed = stats.samplesReplayed.sum();
        long delta = replayed - replayedAtLastReport;
        replayedAtLastReport = replayed;
        if (delta > 0) {
            if (replayStartedNanos == 0) {
                replayStartedNanos = System.nanoTime() - TimeUnit.SECONDS.toNanos(PROGRESS_SECONDS);
                replayedSinceStart = 0;
            }
            replayedSinceStart += delta;
            LOG.info("replication: {} samples replayed in the last {} s ({} samples/s); {} streams received, {} hosts"
                    + " forwarded", delta, PROGRESS_SECONDS, delta / PROGRESS_SECONDS, server.receivers().registry()
                    .connected(), forwarding.status().size());
        } else if (replayStartedNanos != 0) {
            double seconds = (System.nanoTime() - replayStartedNanos) / 1e9 - PROGRESS_SECONDS;
            LOG.info("replication: caught up; {} samples replayed in about {} s", replayedSinceStart,
                    Math.max(1, Math.round(seconds)));
            replayStartedNanos = 0;
        }
    }

    private long metadataFailingSince;
    private long metadataWarnedAt;

    /** Each second; while it fails (a full disk), one warning at first and then every 10 s, not each second. */
    private void syncMetadata() {
        try {
            engine.metadata().sync();
            if (metadataFailingSince != 0) {
                LOG.info("metadata sync succeeds again after {} s", (System.nanoTime() - metadataFailingSince) / 1_000_000_000L);
                metadataFailingSince = 0;
            }
        } catch (IOException | RuntimeException e) {
            long now = System.nanoTime();
            if (metadataFailingSince == 0 || now - metadataWarnedAt >= 10_000_000_000L) {
                String what = e instanceof IOException failure ? DiskFullException.naming(
                        config.dbDir(), failure).getMessage() : e.toString();
                LOG.warn("metadata sync failed{}: {}", metadataFailingSince == 0 ? ""
                        : " (still, for " + (now - metadataFailingSince) / 1_000_000_000L + " s)", what);
                metadataWarnedAt = now;
                if (metadataFailingSince == 0) {
                    metadataFailingSince = now;
                }
            }
        }
    }

    /**
     * What this node exports (docs/exporting.md): its own host, and the hosts it receives directly from
     * themselves (hops 1); their export waits while their gaps are being replicated.
     */
    private HostOwnership exportOwnership() {
        return new HostOwnership() {
            @Override
            public boolean exports(UUID host) {
                return host.equals(machineGuid) || receivers().liveHops(host.toString()) == 1;
            }

            @Override
            public boolean filling(UUID host) {
                ReceiverRegistry.Active a = receivers().snapshot().get(host.toString());
                return a != null && a.chartsReplicating() > 0;
            }
        };
    }

    /** Adds a role (a sender, collectors) to stop with the node. */
    public void addRole(Closeable role) {
        roles.add(role);
    }

    public StorageEngine engine() {
        return engine;
    }

    public UUID machineGuid() {
        return machineGuid;
    }

    public NodeConfig config() {
        return config;
    }

    /** Removes a host that does not stream into this node now, with its metadata (the management API). */
    private HostRemoval.Outcome removeHost(UUID guid) {
        boolean[] removed = {false};
        if (!receivers().unlessConnected(guid.toString(), () -> removed[0] = engine.metadata().removeHost(guid))) {
            return HostRemoval.Outcome.STREAMING;
        }
        if (!removed[0]) {
            return HostRemoval.Outcome.UNKNOWN;
        }
        authorizer.forgetHost(guid.toString());
        return HostRemoval.Outcome.REMOVED;
    }

    public ReceiverStats stats() {
        return stats;
    }

    /** The decisions on {@code STREAM} requests, with the count of hosts under each API key. */
    public StreamAuthorizer authorizer() {
        return authorizer;
    }

    public Forwarding forwarding() {
        return forwarding;
    }

    public ReceiverRegistry receivers() {
        return server.receivers().registry();
    }

    /** The node's meters (streams, engine, query API): what {@code /metrics} scrapes. */
    public PrometheusMeterRegistry meters() {
        return meters;
    }

    /** The HTTP answers' gzip executors (null without the query API); stopped after the port's connections. */
    private EventExecutorGroup gzipGroup;

    /** The bound addresses, in the order of {@code [web] bind to}. */
    public List<InetSocketAddress> listening() {
        return List.copyOf(listening);
    }

    @Override
    public void close() throws IOException {
        for (int i = roles.size() - 1; i >= 0; i--) {
            try {
                roles.get(i).close();
            } catch (IOException | RuntimeException e) {
                LOG.warn("stopping {}: {}", roles.get(i), e.getMessage());
            }
        }
        forwarding.close();
        server.close();
        if (gzipGroup != null) {
            gzipGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        peerLookup.close();
        // A metadata sync in progress is let finish: an interrupt inside a FileChannel call
        // closes the channel for every thread, and the engine's last flush then fails on the
        // metadata log (the pages it closes with are not written).
        housekeeping.shutdown();
        try {
            if (!housekeeping.awaitTermination(HOUSEKEEPING_STOP_SECONDS, TimeUnit.SECONDS)) {
                LOG.warn("the housekeeping did not stop within {} s (a metadata sync the disk does not answer);"
                        + " stopping it", HOUSEKEEPING_STOP_SECONDS);
                housekeeping.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            housekeeping.shutdownNow();
        }
        engine.close();
        LOG.info("node '{}' stopped", config.hostname());
    }
}
