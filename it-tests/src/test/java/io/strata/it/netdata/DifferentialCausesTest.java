package io.strata.it.netdata;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The checks the differential query test applies before putting a difference down to a
 * documented cause, judged on canned answers (the shape of Netdata 1.37.1's).
 */
class DifferentialCausesTest {

    @Test
    void aShellChartWithoutDimensionLinesIsFoundWithItsTwoKeys() {
        String shell = """

                # chart: system.cpu (name: system.cpu)
                NETDATA_SYSTEM_CPU_USER="96"      # percentage
                NETDATA_SYSTEM_CPU_VISIBLETOTAL="96"      # percentage

                # chart: ipv4.sockstat_tcp_mem (name: ipv4.sockstat_tcp_mem)
                NETDATA_IPV4_SOCKSTAT_TCP_MEM_VISIBLETOTAL="0"      # KiB

                # chart: system.load (name: system.load)
                NETDATA_SYSTEM_LOAD_LOAD1="6"      # load
                NETDATA_SYSTEM_LOAD_VISIBLETOTAL="6"      # load

                # NETDATA ALARMS RUNNING
                """;
        Map<String, List<String>> bare = QueryApiMatchesNetdataIT.chartsWithoutDimensionLines(shell);
        assertEquals(Map.of("ipv4.sockstat_tcp_mem", List.of(
                "# chart: ipv4.sockstat_tcp_mem (name: ipv4.sockstat_tcp_mem)",
                "NETDATA_IPV4_SOCKSTAT_TCP_MEM_VISIBLETOTAL")), bare);
    }

    @Test
    void theLastChartOfAnAnswerWithoutDimensionLinesCountsToo() {
        String shell = "\n# chart: a.b (name: a.b)\nNETDATA_A_B_VISIBLETOTAL=\"0\"      # x\n";
        assertEquals(List.of("a.b"), List.copyOf(QueryApiMatchesNetdataIT.chartsWithoutDimensionLines(shell).keySet()));
        assertTrue(QueryApiMatchesNetdataIT.chartsWithoutDimensionLines("\n# chart: a.b (name: a.b)\n").isEmpty());
    }

    @Test
    void aPrometheusChartCommentWithoutMetricLinesIsAChartWithoutCollections() {
        String help = """
                netdata_info{instance="ndchild",application="netdata",version="v1.37.1"} 1 1795804066505

                # COMMENT homogeneous chart "ipv4.sockstat_tcp_mem", context "ipv4.sockstat_tcp_mem", family "tcp", units "KiB"

                # COMMENT homogeneous chart "system.load", context "system.load", family "load", units "load"
                # COMMENT netdata_system_load_load_average: dimension "load1", value is load, gauge, dt 1 to 2 inclusive
                # TYPE netdata_system_load_load_average gauge
                netdata_system_load_load_average{chart="system.load",family="load",dimension="load1"} 0.5000000 1795804063000

                # COMMENT heterogeneous chart "a.b", context "a.b", family "a", units "x"
                """;
        assertEquals(Map.of(
                "ipv4.sockstat_tcp_mem", List.of("# COMMENT homogeneous chart \"ipv4.sockstat_tcp_mem\", context"
                        + " \"ipv4.sockstat_tcp_mem\", family \"tcp\", units \"KiB\""),
                "a.b", List.of("# COMMENT heterogeneous chart \"a.b\", context \"a.b\", family \"a\", units \"x\"")),
                QueryApiMatchesNetdataIT.chartsWithoutMetricLines(help));
    }

    @Test
    void theContextsOfWeightsScoresThatDifferAreNamed() throws Exception {
        String a = "{\"contexts\":{\"system.idlejitter\":{\"weight\":0.537,\"charts\":{\"system.idlejitter\":"
                + "{\"weight\":0.537,\"dimensions\":{\"average\":0.537}}}},\"system.load\":{\"weight\":0.2,"
                + "\"charts\":{\"system.load\":{\"weight\":0.2,\"dimensions\":{\"load1\":0.2}}}}}}";
        String b = a.replace("0.537", "0.533");
        assertEquals(Set.of("system.idlejitter"), DifferentialEndpoints.differingContexts(
                new AnswerDiff.Answer(200, "application/json", a), new AnswerDiff.Answer(200, "application/json", b)));
        String c = "{\"correlated_charts\":{\"system.cpu_some_pressure\":{\"context\":\"system.cpu_some_pressure\","
                + "\"dimensions\":{\"some 300\":0.9095795}}}}";
        assertEquals(Set.of("system.cpu_some_pressure"), DifferentialEndpoints.differingContexts(
                new AnswerDiff.Answer(200, "application/json", c),
                new AnswerDiff.Answer(200, "application/json", c.replace("0.9095795", "0.8800442"))));
        assertTrue(DifferentialEndpoints.differingContexts(new AnswerDiff.Answer(200, "application/json", a),
                new AnswerDiff.Answer(200, "application/json", a)).isEmpty());
    }

    @Test
    void thePrometheusWindowIsReadFromTheHelpComment() {
        String at652 = "# COMMENT netdata \"ndchild\" to prometheus \"localhost\", source \"average\", last seen 0 seconds"
                + " ago, time range 1795790652 to 1795790652\n\nnetdata_info{instance=\"ndchild\"} 1 1795790652825\n";
        String at653 = at652.replace("last seen 0", "last seen 1").replace("to 1795790652\n", "to 1795790653\n");
        assertEquals("last seen 0 seconds ago, time range 1795790652 to 1795790652",
                QueryApiMatchesNetdataIT.prometheusWindow(at652));
        assertFalse(QueryApiMatchesNetdataIT.prometheusWindow(at652).equals(QueryApiMatchesNetdataIT.prometheusWindow(at653)));
        assertEquals("", QueryApiMatchesNetdataIT.prometheusWindow("netdata_info{instance=\"ndchild\"} 1\n"));
    }

    @Test
    void aBadgeAsksTheDataQueryOfItsWindowWithOnePointByDefault() {
        assertEquals("data?format=json&chart=system.ip&dimensions=OutOctets&after=1795783428&before=1795783488"
                        + "&points=1",
                DifferentialEndpoints.dataTwin("badge.svg?chart=system.ip&dimension=OutOctets&after=1795783428"
                        + "&before=1795783488&units=KiB&precision=1", ""));
        assertEquals("data?format=json&chart=system.ip&after=1&before=61&group=sum&points=3&options=abs%7Cflip|jsonwrap",
                DifferentialEndpoints.dataTwin("badge.svg?chart=system.ip&after=1&before=61&points=3"
                        + "&options=abs%7Cflip&group=sum&multiply=488&divide=17&label=a+%2B+b", "jsonwrap"));
    }

    @Test
    void coarserTiersAreReadFromTheDataWrapperOrTheWeightsStatistics() {
        assertTrue(DifferentialEndpoints.readsCoarserTier("{\"db_points_per_tier\":[0,4,0]}"));
        assertFalse(DifferentialEndpoints.readsCoarserTier("{\"db_points_per_tier\":[60,0,0]}"));
        assertTrue(DifferentialEndpoints.readsCoarserTier("{\"statistics\":{\"db_points_per_tier\":[31,4,0]}}"));
        assertFalse(DifferentialEndpoints.readsCoarserTier("not json"));
    }

    @Test
    void aReversedGtimeWindowReachesBackToItsFirstWholeRow() {
        // after > before, points=9, gtime=10: Netdata rounds a row of 11 seconds up to two gtime
        // periods (20 s), so its 10 rows end at ...560 ... ...740 and the first covers ...541 on
        // (both parents answered those rows; the first reached the chart's first seconds)
        String q = "data?chart=system.cpu_some_pressure_stall_time&before=1795795625&after=1795795723&points=9"
                + "&group=percentile98&gtime=10&options=milliseconds%7Cflip&format=jsonp";
        assertEquals(1795795540, QueryApiMatchesNetdataIT.firstSecondOfRows(QueryApiMatchesNetdataIT.params(q), 2,
                1795795800));
        // without gtime the 9 rows are 11 seconds wide, the last ending at ...727 (...723 rounded up)
        String plain = q.replace("&gtime=10", "");
        assertEquals(1795795628, QueryApiMatchesNetdataIT.firstSecondOfRows(QueryApiMatchesNetdataIT.params(plain), 2,
                1795795800));
        assertEquals(0, QueryApiMatchesNetdataIT.firstSecondOfRows(QueryApiMatchesNetdataIT.params("data?after=0"), 1,
                1795795800));
    }

    @Test
    void aJsonwrapTsvTwinDifferingOnlyInRawTabsIsAlike() {
        AnswerDiff diff = new AnswerDiff(Set.of());
        String q = "data?chart=cpu.cpu1_softirqs&points=0&options=absolute+match-ids%7Cjsonwrap&format=tsv&tier=0";
        AnswerDiff.Answer netdata = new AnswerDiff.Answer(200, "application/json",
                "{\"result\": \"time\tTIMER\\n2026-11-27 16:08:00\t18.4322144\\n\"}");
        AnswerDiff.Answer strata = new AnswerDiff.Answer(200, "application/json",
                "{\"result\": \"time\\tTIMER\\n2026-11-27 16:08:00\\t18.4322144\\n\"}");
        assertTrue(QueryApiMatchesNetdataIT.alike(diff, q, netdata, strata));
        AnswerDiff.Answer other = new AnswerDiff.Answer(200, "application/json",
                "{\"result\": \"time\\tTIMER\\n2026-11-27 16:08:00\\t18.4111064\\n\"}");
        assertFalse(QueryApiMatchesNetdataIT.alike(diff, q, netdata, other));
        assertFalse(QueryApiMatchesNetdataIT.alike(diff, q.replace("jsonwrap", "seconds"), netdata, strata));
    }

    @Test
    void aBadgeRowAlignedPastItsWindowIsToldApart() {
        // one row of 61 s: ...305 is rounded up to ...332 (a multiple of 61), past the window
        assertTrue(DifferentialEndpoints.rowEndsAfterWindow("badge.svg?chart=x&after=1795795245&before=1795795305"));
        // a window ending on a multiple of 61 stays where it is; three rows of 20 s on a multiple of 20 too
        assertFalse(DifferentialEndpoints.rowEndsAfterWindow("badge.svg?chart=x&after=1795795227&before=1795795287"));
        assertFalse(DifferentialEndpoints.rowEndsAfterWindow("badge.svg?chart=x&after=1795795260&before=1795795320"
                + "&points=3&options=abs%7Cflip"));
        assertTrue(DifferentialEndpoints.rowEndsAfterWindow("badge.svg?chart=x&after=1795795245&before=1795795305"
                + "&points=3"));
        // unaligned: the window as asked
        assertFalse(DifferentialEndpoints.rowEndsAfterWindow("badge.svg?chart=x&after=1795795245&before=1795795305"
                + "&options=unaligned"));
    }
}
