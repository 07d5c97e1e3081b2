package io.strata.query.api;

import io.strata.query.text.Out;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The shell names of {@code allmetrics?format=shell}: as Netdata 1.37.1's {@code shell_name_copy},
 * each byte of the name's UTF-8 upper-cased or an underscore, and at most 100 bytes (a real
 * Netdata parent printed a container's disk space chart, 150 characters long, cut at 100).
 */
class AllMetricsShellNameTest {

    private static String shell(String name) {
        Out o = new Out();
        AllMetricsApi.shellName(o, name);
        return o.text();
    }

    @Test
    void namesAreCutAtAHundredBytesAsNetdataCutsThem() {
        String chart = "disk_space._var_lib_containers_storage_overlay_bcad1665c8eb43847240e0c2d85934d710c74107cee6dd714b2706d83cc9e218_merged";
        // what the Netdata parent answered for this chart's "avail" dimension
        assertEquals("DISK_SPACE__VAR_LIB_CONTAINERS_STORAGE_OVERLAY_BCAD1665C8EB43847240E0C2D85934D710C74107CEE6DD714B270",
                shell(chart));
        assertEquals(100, shell(chart).length());
        assertEquals("SYSTEM_CPU", shell("system.cpu"));
        assertEquals("A".repeat(100), shell("a".repeat(100)));
    }

    @Test
    void everyByteOfAMultiByteCharacterIsAnUnderscore() {
        // C's isalnum() sees bytes: "é" is two bytes, two underscores
        assertEquals("CAF__", shell("café"));
        assertEquals("_".repeat(100), shell("é".repeat(60)));
    }
}
