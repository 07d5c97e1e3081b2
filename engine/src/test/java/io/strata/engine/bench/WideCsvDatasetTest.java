package io.strata.engine.bench;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What a writer fills for a second is what a reader expects for each metric at that second. */
class WideCsvDatasetTest {

    @Test
    void fillGivesEveryMetricItsColumnAtTheRow() throws IOException {
        String csv = "time,a,b,c\n1,1.5,2,\n2,3,4.25,5\n";
        WideCsvDataset ds = WideCsvDataset.read("t", new ByteArrayInputStream(csv.getBytes(StandardCharsets.UTF_8)));
        assertEquals(3, ds.columns());
        assertEquals(2, ds.rows());
        for (int from : new int[] {0, 1, 2, 4, 7}) {
            for (long t = 0; t < 5; t++) {
                double[] out = new double[11];
                ds.fill(t, from, from + 11, out);
                for (int m = from; m < from + 11; m++) {
                    double want = ds.value(m, t);
                    assertEquals(Double.doubleToRawLongBits(want), Double.doubleToRawLongBits(out[m - from]),
                            "metric " + m + " at " + t + " from " + from);
                    double[] one = new double[1];
                    ds.fill(t, m, m + 1, one);
                    assertEquals(Double.doubleToRawLongBits(want), Double.doubleToRawLongBits(one[0]),
                            "metric " + m + " alone at " + t);
                }
            }
        }
        assertEquals(3.0, ds.value(0, 1));
        assertEquals(Double.NaN, ds.value(2, 0));
    }
}
