package io.strata.engine.registry;

import org.junit.jupiter.api.Test;

import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class MetricRegistryClearTest {

    @Test
    void aClearedRegistryAnswersAsANewOne() {
        MetricRegistry reused = new MetricRegistry(3);
        // past the map's first capacity (1 024 slots at 3/4), so that it has grown before the clear
        for (int i = 0; i < 2000; i++) {
            int id = reused.register(new UUID(1, i), i % 7);
            reused.extend(id, i % 3, 100 + i, 200 + i);
        }
        reused.clear();
        assertEquals(0, reused.size());
        assertEquals(-1, reused.lookup(new UUID(1, 5)), "a metric of before the clear is unknown");
        assertThrows(IndexOutOfBoundsException.class, () -> reused.chartId(0));

        MetricRegistry fresh = new MetricRegistry(3);
        for (int i = 0; i < 50; i++) {
            UUID u = new UUID(2, i);
            int id = reused.register(u, 3);
            assertEquals(fresh.register(u, 3), id);
            assertEquals(fresh.lookup(u), reused.lookup(u));
            assertEquals(fresh.chartId(id), reused.chartId(id));
            for (int tier = 0; tier < 3; tier++) {
                assertEquals(MetricRegistry.NO_TIME, reused.firstTime(id, tier), "no time left from before the clear");
                assertEquals(MetricRegistry.NO_TIME, reused.lastTime(id, tier), "no time left from before the clear");
            }
        }
        assertEquals(50, reused.size());
    }
}
