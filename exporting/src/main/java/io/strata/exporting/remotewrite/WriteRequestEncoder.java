package io.strata.exporting.remotewrite;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import io.strata.exporting.prompb.Remote;
import io.strata.exporting.prompb.Types;
import org.xerial.snappy.Snappy;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * Builds one remote-write 1.0 request body: a protobuf {@code prometheus.WriteRequest} (the messages
 * generated from {@code src/main/proto}), then snappy's block format. Reused request after request.
 *
 * <pre>
 * WriteRequest  = { 1: TimeSeries }*                                   (field 1, length-delimited)
 * TimeSeries    = labels of the series ({@link LabelSet#serializedLabels()}: { 1: Label }*, sorted)
 *                 { 2: Sample }*                                       (in time order)
 * Sample        = { 1: double value (fixed64) } { 2: int64 timestamp ms (varint) }
 * </pre>
 *
 * The label part of a series is the generated {@code TimeSeries} message serialized once per series;
 * the samples are appended with protobuf's {@link CodedOutputStream} using the generated field numbers,
 * so that no object is made per sample. Protobuf concatenates fields of one message, so the result parses
 * with the generated {@link Remote.WriteRequest#parseFrom(byte[])} (the tests check it does).
 */
public final class WriteRequestEncoder {

    private static final int TIMESERIES = Remote.WriteRequest.TIMESERIES_FIELD_NUMBER;
    private static final int SAMPLES = Types.TimeSeries.SAMPLES_FIELD_NUMBER;
    private static final int VALUE = Types.Sample.VALUE_FIELD_NUMBER;
    private static final int TIMESTAMP = Types.Sample.TIMESTAMP_FIELD_NUMBER;

    private final Bytes raw = new Bytes();
    private final CodedOutputStream out = CodedOutputStream.newInstance(raw, 64 * 1024);
    private byte[] compressed = new byte[0];
    private int compressedLength;
    private int series;
    private long samples;

    /** Starts a new request. */
    public void reset() {
        raw.size = 0;
        series = 0;
        samples = 0;
        compressedLength = 0;
    }

    /**
     * Appends one series: {@code count} samples at {@code timesMs[i]} with {@code values[i]}, times strictly
     * increasing. Nothing is written for {@code count == 0} (a series without samples is not valid).
     */
    public void addSeries(LabelSet labels, long[] timesMs, double[] values, int count) throws IOException {
        if (count == 0) {
            return;
        }
        byte[] l = labels.serializedLabels();
        int size = l.length;
        for (int i = 0; i < count; i++) {
            if (i > 0 && timesMs[i] <= timesMs[i - 1]) {
                throw new IllegalArgumentException("samples of " + labels + " out of time order at " + timesMs[i]);
            }
            int s = sampleSize(timesMs[i]);
            size += CodedOutputStream.computeTagSize(SAMPLES) + CodedOutputStream.computeUInt32SizeNoTag(s) + s;
        }
        out.writeTag(TIMESERIES, WireFormat.WIRETYPE_LENGTH_DELIMITED);
        out.writeUInt32NoTag(size);
        out.writeRawBytes(l);
        for (int i = 0; i < count; i++) {
            out.writeTag(SAMPLES, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(sampleSize(timesMs[i]));
            out.writeDouble(VALUE, values[i]);
            out.writeInt64(TIMESTAMP, timesMs[i]);
        }
        series++;
        samples += count;
    }

    private static int sampleSize(long timeMs) {
        return CodedOutputStream.computeDoubleSize(VALUE, 0) + CodedOutputStream.computeInt64Size(TIMESTAMP, timeMs);
    }

    /** Ends the request: serializes and compresses it; the body is then {@link #body()}, {@link #bodyLength()}. */
    public void finish() throws IOException {
        out.flush();
        int max = Snappy.maxCompressedLength(raw.size);
        if (compressed.length < max) {
            compressed = new byte[Math.max(max, compressed.length * 2)];
        }
        compressedLength = Snappy.rawCompress(raw.buf, 0, raw.size, compressed, 0);
    }

    public byte[] body() {
        return compressed;
    }

    public int bodyLength() {
        return compressedLength;
    }

    /** Bytes of the protobuf before compression. */
    public int uncompressedLength() {
        return raw.size;
    }

    public int series() {
        return series;
    }

    public long samples() {
        return samples;
    }

    /** The uncompressed protobuf, for tests. */
    byte[] uncompressed() throws IOException {
        out.flush();
        return Arrays.copyOf(raw.buf, raw.size);
    }

    /** A growable byte array the coded stream flushes into. */
    private static final class Bytes extends OutputStream {
        byte[] buf = new byte[256 * 1024];
        int size;

        private void ensure(int more) {
            if (size + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
            }
        }

        @Override
        public void write(int b) {
            ensure(1);
            buf[size++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            ensure(len);
            System.arraycopy(b, off, buf, size, len);
            size += len;
        }
    }
}
