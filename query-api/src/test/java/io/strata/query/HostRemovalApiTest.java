package io.strata.query;

import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.query.http.HostRemoval;
import io.strata.query.http.HttpAccess;
import io.strata.query.http.HttpPolicy;
import io.strata.query.http.ApiServices;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code DELETE /api/v1/manage/host}: an obsolete host leaves {@code mirrored_hosts} and its
 * {@code /host/X/} URLs with its metadata, other hosts' data answer as before, a restart does not
 * bring it back; a host streaming now, the node's own host, a {@code GET}, and a client without
 * the management permission are refused.
 */
class HostRemovalApiTest {

    static final UUID PARENT = UUID.fromString("1761f17c-e5a4-11f1-aa0f-02fc000000a0");
    static final UUID KEPT = UUID.fromString("192bb042-e5a4-11f1-b388-02fc000000a1");
    static final UUID GONE = UUID.fromString("192bb042-e5a4-11f1-b388-02fc000000a2");
    static final UUID LIVE = UUID.fromString("192bb042-e5a4-11f1-b388-02fc000000a3");
    static final long T = 1_795_262_837L;

    @TempDir
    Path dir;

    private static void host(StorageEngine engine, UUID guid, String name) {
        engine.metadata().upsertHost(new HostInfo(guid, name, "linux", "UTC", 1, Map.of()));
        engine.metadata().upsertChart(ChartInfo.of(guid, "system.load", 1));
        int metric = engine.metadata().upsertDimension(DimensionInfo.of(guid, "system.load", "load1"));
        for (long t = T; t < T + 60; t++) {
            assertTrue(engine.store(metric, t, 1, (t % 7) + 0.5, StorageNumber.SN_DEFAULT_FLAGS));
        }
    }

    private ApiContext api(StorageEngine engine) {
        return new ApiContext(engine, PARENT, "parent", null, new MutableClock(T + 60), ApiContext.defaultExecutor(2));
    }

    private static String mirrored(TestServer s) throws Exception {
        String info = s.get("/api/v1/info").body();
        int from = info.indexOf("\"mirrored_hosts\"");
        return info.substring(from, info.indexOf(']', from));
    }

    @Test
    void anObsoleteHostIsRemovedWithItsMetadataAndStaysRemoved() throws Exception {
        String keptData = "/host/kept/api/v1/data?chart=system.load&after=" + T + "&before=" + (T + 59)
                + "&points=60&format=csv";
        String keptAnswer;
        Path db = dir.resolve("db");
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(db));
             ApiContext api = api(engine)) {
            host(engine, PARENT, "parent");
            host(engine, KEPT, "kept");
            host(engine, GONE, "gone");
            host(engine, LIVE, "live");
            HostRemoval removeFromStore = ApiServices.of(api).hostRemoval();
            // the node refuses a host that streams now: here "live" does
            ApiServices.of(api).hostRemoval(guid -> guid.equals(LIVE) ? HostRemoval.Outcome.STREAMING
                    : removeFromStore.remove(guid));
            try (TestServer s = new TestServer(api)) {
                assertTrue(mirrored(s).contains("\"gone\""));
                keptAnswer = s.get(keptData).body();
                assertEquals(200, s.get("/host/gone/api/v1/charts").statusCode());

                HttpResponse<String> r = s.request("DELETE", "/api/v1/manage/host?host=gone");
                assertEquals(200, r.statusCode(), r.body());
                assertTrue(r.body().startsWith("Removed host 'gone' (" + GONE + "): 1 charts, 1 dimensions."), r.body());

                assertFalse(mirrored(s).contains("\"gone\""), mirrored(s));
                HttpResponse<String> unknown = s.get("/host/gone/api/v1/info");
                assertEquals(404, unknown.statusCode());
                assertEquals("This netdata does not maintain a database for host: gone", unknown.body());
                assertEquals(404, s.get("/host/" + GONE + "/api/v1/charts").statusCode());
                assertEquals(keptAnswer, s.get(keptData).body(), "another host's data answers as before");

                // a second removal finds nothing
                assertEquals(404, s.request("DELETE", "/api/v1/manage/host?host=" + GONE).statusCode());

                HttpResponse<String> live = s.request("DELETE", "/api/v1/manage/host?host="
                        + LIVE.toString().toUpperCase(Locale.ROOT));
                assertEquals(409, live.statusCode());
                assertEquals("The host 'live' (" + LIVE + ") is streaming to this node now; it can be removed once"
                        + " its stream has ended.", live.body());
                assertTrue(mirrored(s).contains("\"live\""));

                HttpResponse<String> own = s.request("DELETE", "/api/v1/manage/host?host=parent");
                assertEquals(400, own.statusCode());
                assertTrue(own.body().contains("this node's own"), own.body());

                HttpResponse<String> get = s.get("/api/v1/manage/host?host=kept");
                assertEquals(405, get.statusCode());
                assertTrue(get.body().startsWith("Use DELETE /api/v1/manage/host?host="), get.body());
                assertEquals(405, s.request("DELETE", "/api/v1/info").statusCode(), "DELETE removes hosts only");
                assertEquals(400, s.request("DELETE", "/api/v1/manage/host").statusCode());
                assertTrue(mirrored(s).contains("\"kept\""));
            }
            // a client that the management ACL does not let in
            HttpPolicy dashboardOnly = new HttpPolicy(10, 60, EnumSet.of(HttpAccess.DASHBOARD), false, false, null);
            try (TestServer s = new TestServer(api, dashboardOnly)) {
                HttpResponse<String> r = s.request("DELETE", "/api/v1/manage/host?host=kept");
                assertEquals(403, r.statusCode());
                assertTrue(mirrored(s).contains("\"kept\""));
            }
        }
        // after a restart the host is still gone, the others still answer
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(db));
             ApiContext api = api(engine);
             TestServer s = new TestServer(api)) {
            String hosts = mirrored(s);
            assertFalse(hosts.contains("\"gone\""), hosts);
            assertTrue(hosts.contains("\"kept\"") && hosts.contains("\"live\""), hosts);
            assertEquals(404, s.get("/host/gone/api/v1/info").statusCode());
            assertEquals(keptAnswer, s.get(keptData).body());
        }
    }
}
