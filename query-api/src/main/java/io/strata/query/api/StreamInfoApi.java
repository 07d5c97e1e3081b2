package io.strata.query.api;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.strata.engine.registry.MetricRegistry;
import io.strata.query.catalog.ChartView;
import io.strata.query.catalog.HostView;
import io.strata.query.http.ApiRequest;
import io.strata.query.http.ApiResponse;
import io.strata.query.http.ContentTypes;
import io.strata.query.http.StreamIngest;
import io.strata.query.text.Out;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code /api/v3/stream_info?machine_guid=GUID}, answered as a Netdata 2.x parent answers it: a
 * 2.x child asks every parent of its list before it connects, bans one whose {@code ingest_type}
 * is {@code localhost} or {@code virtual} (itself, or a loop), waits on {@code initializing}, and
 * tries the newest {@code last_time_s} first. The HTTP status is the {@code status} field: 200 for a
 * host this parent holds, 404 (and only the first six fields) for any other. Netdata's child
 * reads the body by its {@code Content-Length}, which every answer carries.
 */
public final class StreamInfoApi {

    private StreamInfoApi() {
    }

    public static ApiResponse streamInfo(ApiRequest req) {
        HostView host = null;
        String guid = req.query().get("machine_guid");
        if (guid != null && !guid.isEmpty()) {
            host = findByGuid(req.catalog().hosts(), guid);
        }
        StreamIngest ingest = req.services().streamIngest();
        int status = host == null ? 404 : 200;
        Out o = new Out(512);
        o.a("{\"version\":1,\"status\":").integer(status)
                .a(",\"host_id\":\"").a(req.context().machineGuid().toString())
                .a("\",\"nodes\":").integer(req.catalog().hosts().size())
                .a(",\"receivers\":").integer(ingest.connectedReceivers())
                // Netdata sends a fresh random 32-bit number with each answer
                .a(",\"nonce\":").integer(ThreadLocalRandom.current().nextLong(1L << 32));
        if (host != null) {
            boolean live = host.local() || ingest.receiving(host.guid());
            long[] retention = retention(req.context().engine().registry(), host);
            o.a(",\"db_status\":\"online\",\"db_liveness\":\"").a(live ? "live" : "stale")
                    .a("\",\"ingest_type\":\"").a(host.local() ? "localhost" : "child")
                    .a("\",\"ingest_status\":\"").a(live ? "online" : "offline")
                    .a("\",\"first_time_s\":").integer(retention[0])
                    .a(",\"last_time_s\":").integer(retention[1]);
        }
        o.a("}");
        return new ApiResponse(HttpResponseStatus.valueOf(status), ContentTypes.JSON, o.toByteBuf(),
                ApiResponse.Caching.NO_CACHE, List.of());
    }

    private static HostView findByGuid(List<HostView> hosts, String guid) {
        UUID wanted;
        try {
            wanted = UUID.fromString(guid.trim());
        } catch (IllegalArgumentException notAGuid) {
            return null;
        }
        for (HostView h : hosts) {
            if (h.guid().equals(wanted)) {
                return h;
            }
        }
        return null;
    }

    /** The oldest point of the host in any tier and its newest in tier 0 (0 and 0 when it has none). */
    static long[] retention(MetricRegistry registry, HostView h) {
        long first = Long.MAX_VALUE;
        long last = 0;
        int tiers = registry.tiers();
        for (ChartView c : h.charts()) {
            for (int d = 0; d < c.dimensions(); d++) {
                int metric = c.metric(d);
                for (int t = 0; t < tiers; t++) {
                    long f = registry.firstTime(metric, t);
                    if (f > 0) {
                        first = Math.min(first, f);
                    }
                }
                last = Math.max(last, registry.lastTime(metric, 0));
            }
        }
        return new long[]{first == Long.MAX_VALUE ? 0 : first, last};
    }
}
