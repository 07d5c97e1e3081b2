package io.strata.node.runtime;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.strata.engine.StorageEngine;
import io.strata.engine.netdata.ConfigNumbers;
import io.strata.query.http.ApiError;
import io.strata.query.http.ApiResponse;
import io.strata.query.http.ContentTypes;
import io.strata.query.http.PeerReplay;
import io.strata.query.http.QueryString;
import io.strata.replication.sender.PastRangeAnswer;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.auth.Uuids;
import io.strata.streaming.server.LogText;
import io.strata.streaming.server.PerAddressLogLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A parent's answer to its peers' {@code GET /host/<machine GUID>/api/v1/replay_chart?chart=&after=&before=}
 * (docs/format/peer-replay.md): the stored past of one chart in a replication answer's text
 * ({@link PastRangeAnswer}). Who may ask: the port's {@code streaming} permission ({@code allow
 * streaming from}, checked before this runs), and an API key in {@code Authorization: Bearer <key>}
 * that would let the host's stream in from the client's address ({@link StreamAuthorizer#peerReadRefusal}):
 * a peer that forwards the host here holds that key (its {@code proxy api key}). Refusals are 403
 * with Netdata's text, logged at WARN at most once per address and reason every 10 s. Runs on the
 * query API's executor (it reads the engine).
 */
final class PeerReplayEndpoint implements PeerReplay {

    private static final Logger LOG = LoggerFactory.getLogger(PeerReplayEndpoint.class);
    /** Netdata's text for a request its web-server ACL refuses. */
    static final String FORBIDDEN_TEXT = "You are not allowed to access this resource.";
    private static final String BEARER = "bearer ";

    private final StorageEngine engine;
    private final StreamAuthorizer authorizer;
    private final LongSupplier wallMillis;
    private final PerAddressLogLimiter refusals = new PerAddressLogLimiter(TimeUnit.SECONDS.toNanos(10));

    PeerReplayEndpoint(StorageEngine engine, StreamAuthorizer authorizer, LongSupplier wallMillis) {
        this.engine = engine;
        this.authorizer = authorizer;
        this.wallMillis = wallMillis;
    }

    @Override
    public ApiResponse answer(String host, QueryString query, String authorization, String client,
                              ByteBufAllocator alloc) throws IOException {
        if (host == null || !Uuids.isUuid(Uuids.canonical(host))) {
            throw ApiError.badRequest("replay_chart needs the host's machine GUID: /host/<machine GUID>"
                    + PeerReplay.PATH);
        }
        String key = authorization != null && authorization.length() > BEARER.length()
                && authorization.substring(0, BEARER.length()).toLowerCase(Locale.ROOT).equals(BEARER)
                ? authorization.substring(BEARER.length()).trim() : "";
        String refusal = authorizer.peerReadRefusal(key, host, client);
        if (refusal != null) {
            long suppressed = refusals.admit(client, refusal, System.nanoTime());
            if (suppressed >= 0) {
                LOG.warn("replay_chart of host {} from [{}] refused: {}{}", LogText.escape(host), LogText.escape(client),
                        refusal, PerAddressLogLimiter.suppressedNote(suppressed));
            }
            throw new ApiError(HttpResponseStatus.FORBIDDEN, ContentTypes.TEXT_PLAIN, FORBIDDEN_TEXT);
        }
        String chart = query.get("chart");
        if (chart == null || chart.isEmpty()) {
            throw ApiError.badRequest("Missing chart= (the chart's id, type.id).");
        }
        long after = seconds(query, "after");
        long before = seconds(query, "before");
        if (after >= before) {
            throw ApiError.badRequest("after must be below before.");
        }
        ByteBuf out = alloc.buffer();
        boolean done = false;
        try {
            PastRangeAnswer.Outcome o;
            try {
                o = PastRangeAnswer.write(engine, UUID.fromString(Uuids.canonical(host)), chart, after, before,
                        wallMillis.getAsLong() / 1000, out);
            } catch (IOException e) {
                // the engine logs what it could not read; the peer asks again later
                throw new ApiError(HttpResponseStatus.SERVICE_UNAVAILABLE, ContentTypes.TEXT_PLAIN,
                        "The stored points could not be read: " + e.getMessage());
            }
            switch (o) {
                case UNKNOWN_HOST -> throw new ApiError(HttpResponseStatus.NOT_FOUND, ContentTypes.TEXT_PLAIN,
                        "This netdata does not maintain a database for host: " + host);
                case UNKNOWN_CHART -> throw ApiError.notFound("Chart is not found: " + chart);
                default -> {
                }
            }
            done = true;
            return ApiResponse.ok(ContentTypes.TEXT_PLAIN, out, ApiResponse.Caching.NO_CACHE);
        } finally {
            if (!done) {
                out.release();
            }
        }
    }

    /** A whole number of unsigned 32-bit seconds, else 400 naming the parameter. */
    private static long seconds(QueryString query, String name) {
        String v = query.get(name);
        long n = v == null ? -1 : ConfigNumbers.wholeNumber(v).orElse(-1L);
        if (n < 0 || n > 0xFFFF_FFFFL) {
            throw ApiError.badRequest("Missing or invalid " + name + "= (unix seconds).");
        }
        return n;
    }
}
