package io.strata.query.http;

import io.strata.query.ApiContext;
import io.strata.query.catalog.CatalogCache;
import io.strata.query.metrics.HttpByteCounter;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Objects;
import io.strata.query.data.QueryBudget;

/**
 * State shared by every connection of one {@link ApiContext}: the catalog snapshot, the byte
 * counter of its connections and, per Prometheus server, when it last scraped (its averages cover the time since). Kept beside the
 * context, weakly, because the context is a plain record handed to each new connection.
 */
public final class ApiServices {

    private static final Map<ApiContext, ApiServices> BY_CONTEXT = Collections.synchronizedMap(new WeakHashMap<>());
    /** Bound on remembered Prometheus servers; beyond it the map is cleared (each then starts afresh). */
    private static final int MAX_SCRAPERS = 1024;

    private final CatalogCache catalog;
    private final Map<String, Long> lastScrape = new ConcurrentHashMap<>();
    private final HttpByteCounter byteCounter;
    private volatile StreamIngest streamIngest = StreamIngest.NONE;
    private volatile HostRemoval hostRemoval;
    private volatile PeerReplay peerReplay = PeerReplay.NONE;
    private volatile QueryBudget.Limits queryLimits =
            QueryBudget.Limits.DEFAULTS;

    private ApiServices(ApiContext ctx) {
        // nothing here may refer to ctx itself, or the weak key would never be released
        this.catalog = new CatalogCache(ctx.engine().metadata(), ctx.machineGuid(), ctx.hostname(), System::nanoTime);
        this.byteCounter = new HttpByteCounter(ctx.meters());
        this.hostRemoval = HostRemoval.metadataOnly(ctx.engine().metadata());
    }

    public static ApiServices of(ApiContext ctx) {
        return BY_CONTEXT.computeIfAbsent(ctx, ApiServices::new);
    }

    public CatalogCache catalog() {
        return catalog;
    }

    /** The byte counter every HTTP connection of the context shares. */
    public HttpByteCounter byteCounter() {
        return byteCounter;
    }

    /** The bounds of one query's work ({@code [web] query timeout ms}, {@code max points read per query}). */
    public QueryBudget.Limits queryLimits() {
        return queryLimits;
    }

    public void queryLimits(QueryBudget.Limits limits) {
        this.queryLimits = Objects.requireNonNull(limits, "limits");
    }

    /** The node's stream receivers, as {@code /api/v3/stream_info} reports them. */
    public StreamIngest streamIngest() {
        return streamIngest;
    }

    public void streamIngest(StreamIngest ingest) {
        this.streamIngest = Objects.requireNonNull(ingest, "ingest");
    }

    /** How {@code DELETE /api/v1/manage/host} removes a host (the node's refuses a streaming one). */
    public HostRemoval hostRemoval() {
        return hostRemoval;
    }

    public void hostRemoval(HostRemoval removal) {
        this.hostRemoval = Objects.requireNonNull(removal, "removal");
    }

    /** How {@code /host/<guid>/api/v1/replay_chart} is answered (a node's parent: the stored past, for its peers). */
    public PeerReplay peerReplay() {
        return peerReplay;
    }

    public void peerReplay(PeerReplay replay) {
        this.peerReplay = Objects.requireNonNull(replay, "replay");
    }

    /** Records that {@code server} scrapes at {@code now}; returns its previous scrape time, or 0. */
    public long scraped(String server, long now) {
        if (lastScrape.size() >= MAX_SCRAPERS && !lastScrape.containsKey(server)) {
            lastScrape.clear();
        }
        Long previous = lastScrape.put(server, now);
        return previous == null ? 0 : previous;
    }
}
