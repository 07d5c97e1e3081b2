package io.strata.exporting.remotewrite;

import io.strata.exporting.prompb.Remote;
import io.strata.exporting.prompb.Types;
import org.junit.jupiter.api.Test;
import org.xerial.snappy.Snappy;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** What the encoder sends parses with the generated protobuf classes after snappy, sample for sample. */
class WriteRequestEncoderTest {

    private static LabelSet labels(String name, String dimension) {
        return new LabelSet.Builder().add("__name__", name).add("chart", "system.cpu").add("family", "cpu")
                .add("dimension", dimension).add("instance", "host-1").build();
    }

    @Test
    void roundTripsThroughSnappyAndTheGeneratedParser() throws Exception {
        SplittableRandom rnd = new SplittableRandom(20);
        WriteRequestEncoder enc = new WriteRequestEncoder();
        for (int request = 0; request < 3; request++) { // the encoder is reused
            enc.reset();
            int seriesCount = 1 + rnd.nextInt(50);
            long[][] times = new long[seriesCount][];
            double[][] values = new double[seriesCount][];
            for (int s = 0; s < seriesCount; s++) {
                int n = 1 + rnd.nextInt(300);
                times[s] = new long[n];
                values[s] = new double[n];
                long t = 1_700_000_000_000L + rnd.nextInt(1000);
                for (int i = 0; i < n; i++) {
                    t += 1 + rnd.nextInt(10_000);
                    times[s][i] = t;
                    values[s][i] = switch (i % 5) {
                        case 0 -> 0.0;
                        case 1 -> -rnd.nextDouble() * 1e9;
                        case 2 -> Double.MAX_VALUE;
                        default -> rnd.nextDouble();
                    };
                }
                enc.addSeries(labels("netdata_m" + s, "d" + s), times[s], values[s], n);
            }
            enc.finish();
            byte[] body = Arrays.copyOf(enc.body(), enc.bodyLength());
            byte[] raw = Snappy.uncompress(body);
            assertEquals(enc.uncompressedLength(), raw.length);
            Remote.WriteRequest wr = Remote.WriteRequest.parseFrom(raw);
            assertEquals(seriesCount, wr.getTimeseriesCount());
            for (int s = 0; s < seriesCount; s++) {
                Types.TimeSeries ts = wr.getTimeseries(s);
                assertEquals(List.of("__name__", "chart", "dimension", "family", "instance"),
                        ts.getLabelsList().stream().map(Types.Label::getName).toList());
                assertEquals("netdata_m" + s, ts.getLabels(0).getValue());
                assertEquals("d" + s, ts.getLabels(2).getValue());
                assertEquals(times[s].length, ts.getSamplesCount());
                for (int i = 0; i < times[s].length; i++) {
                    assertEquals(times[s][i], ts.getSamples(i).getTimestamp());
                    assertEquals(Double.doubleToRawLongBits(values[s][i]),
                            Double.doubleToRawLongBits(ts.getSamples(i).getValue()));
                }
            }
            // and what the generated builder serializes for the same request is the same message
            assertEquals(wr, Remote.WriteRequest.parseFrom(wr.toByteArray()));
        }
    }

    @Test
    void aSeriesWithoutSamplesIsNotSentAndSamplesMustBeInTimeOrder() throws Exception {
        WriteRequestEncoder enc = new WriteRequestEncoder();
        enc.reset();
        enc.addSeries(labels("a", "x"), new long[0], new double[0], 0);
        assertEquals(0, enc.series());
        assertThrows(IllegalArgumentException.class,
                () -> enc.addSeries(labels("a", "x"), new long[] {2000, 1000}, new double[] {1, 2}, 2));
        assertThrows(IllegalArgumentException.class,
                () -> enc.addSeries(labels("a", "x"), new long[] {1000, 1000}, new double[] {1, 2}, 2));
    }

    @Test
    void labelsAreSortedByBytesUniqueAndNeverEmpty() {
        LabelSet l = new LabelSet.Builder().add("__name__", "n").add("instance", "h").add("family", "")
                .add("chart", "c").add("instance", "other")
                .addAll(Map.of("zone", "eu", "chart", "from-host", "_os", "linux", "9bad", "v", "we.ird", "x",
                        "empty", "", "__reserved", "r"))
                .build();
        assertEquals("{_9bad=\"v\", __name__=\"n\", _os=\"linux\", chart=\"c\", instance=\"h\", we_ird=\"x\", zone=\"eu\"}",
                l.toString());
        assertThrows(IllegalArgumentException.class, () -> new LabelSet.Builder().add("bad-name", "v"));
        assertThrows(IllegalStateException.class, () -> new LabelSet.Builder().add("chart", "v").build());
        byte[] again = new LabelSet.Builder().add("instance", "h").add("__name__", "n").add("chart", "c").build()
                .serializedLabels();
        byte[] same = new LabelSet.Builder().add("chart", "c").add("__name__", "n").add("instance", "h").build()
                .serializedLabels();
        assertArrayEquals(same, again);
    }
}
