package io.strata.streaming.sender;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The order in which a child tries its parents, from their stream_info answers. */
class ParentRankingTest {

    private static final Destination A = Destination.parse("127.0.0.1:1001", 19999);
    private static final Destination B = Destination.parse("127.0.0.1:1002", 19999);
    private static final Destination C = Destination.parse("127.0.0.1:1003", 19999);

    private static StreamInfoReply.Probe holds(long last, String type, String status) {
        return new StreamInfoReply.Probe(StreamInfoReply.Kind.HOLDS_HOST, new StreamInfoReply.StreamInfo(200,
                "guid", 2, 1, 7, "online", "live", type, status, last - 100, last), "");
    }

    private static StreamInfoReply.Probe holds(long last) {
        return holds(last, "child", "online");
    }

    private static final StreamInfoReply.Probe UNKNOWN = new StreamInfoReply.Probe(StreamInfoReply.Kind.HOST_UNKNOWN,
            new StreamInfoReply.StreamInfo(404, "guid", 1, 0, 7, "", "", "", "", 0, 0), "");
    private static final StreamInfoReply.Probe NO_INFO = new StreamInfoReply.Probe(
            StreamInfoReply.Kind.NO_STREAM_INFO, null, "not JSON");

    private static ParentRanking.Ranking rank(List<Destination> list, Map<Destination, StreamInfoReply.Probe> p) {
        return ParentRanking.rank(list, p, n -> n - 1);
    }

    @Test
    void theParentHoldingTheNewestDataComesFirst() {
        ParentRanking.Ranking r = rank(List.of(A, B, C), Map.of(A, holds(1000), B, holds(1060), C, holds(1030)));
        assertEquals(List.of(B, C, A), r.order());
        assertTrue(r.setAside().isEmpty());
    }

    @Test
    void equalFreshnessKeepsTheListsOrder() {
        assertEquals(List.of(B, A, C), rank(List.of(B, A, C), Map.of(A, holds(5), B, holds(5), C, holds(5))).order());
        // one second fresher is fresher: no window of similarity
        assertEquals(List.of(A, B), rank(List.of(B, A), Map.of(A, holds(6), B, holds(5))).order());
    }

    @Test
    void parentsWithoutStreamInfoKeepTheListsOrderBehindThoseThatHoldTheHost() {
        // only 1.37.1 parents (no endpoint), or none answering: the list's order, unchanged
        assertEquals(List.of(C, A, B), rank(List.of(C, A, B), Map.of(A, NO_INFO, B, NO_INFO, C, NO_INFO)).order());
        assertEquals(List.of(C, A, B), rank(List.of(C, A, B), Map.of()).order());
        // a parent holding the host goes before one that does not know it (404) or has no endpoint
        Map<Destination, StreamInfoReply.Probe> p = new HashMap<>();
        p.put(A, UNKNOWN);
        p.put(B, NO_INFO);
        p.put(C, holds(1));
        assertEquals(List.of(C, A, B), rank(List.of(A, B, C), p).order());
        p.put(C, StreamInfoReply.Probe.noAnswer("refused"));
        assertEquals(List.of(A, B, C), rank(List.of(A, B, C), p).order());
    }

    @Test
    void anInitializingParentIsSetAsideForThirtyToSixtySeconds() {
        ParentRanking.Ranking r = ParentRanking.rank(List.of(A, B),
                Map.of(A, holds(2000, "child", "initializing"), B, holds(1000)), n -> 0);
        assertEquals(List.of(B), r.order());
        assertEquals(List.of(new ParentRanking.SetAside(A, 30, "the parent is initializing")), r.setAside());
        r = ParentRanking.rank(List.of(A), Map.of(A, holds(2000, "child", "initializing")), n -> n - 1);
        assertEquals(List.of(), r.order());
        assertEquals(60, r.setAside().get(0).seconds());
    }

    @Test
    void aParentThatIsThisHostItselfIsSetAsideForAnHour() {
        for (String type : new String[]{"localhost", "virtual"}) {
            ParentRanking.Ranking r = rank(List.of(A, B), Map.of(A, holds(2000, type, "online"), B, holds(10)));
            assertEquals(List.of(B), r.order());
            assertEquals(ParentRanking.POSTPONE_ORIGIN_SECONDS, r.setAside().get(0).seconds());
            assertTrue(r.setAside().get(0).reason().contains(type), r.setAside().get(0).reason());
        }
    }

    @Test
    void aParentAlreadyReceivingTheHostIsStillRanked() {
        // 2.9.0 bans only a parent that is before us in the host's stream path; a parent that
        // receives the host from a peer of its cluster is a parent like any other
        ParentRanking.Ranking r = rank(List.of(A, B), Map.of(A, holds(10, "child", "replicating"), B,
                holds(20, "child", "online")));
        assertEquals(List.of(B, A), r.order());
    }
}
