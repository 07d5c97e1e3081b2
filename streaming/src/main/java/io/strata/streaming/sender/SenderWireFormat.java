package io.strata.streaming.sender;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.strata.engine.page.StorageNumber;
import io.strata.streaming.wire.NetdataNumbers;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * The text lines a Netdata 1.37.1 child writes to its parent (child to parent direction), written
 * straight into a Netty {@link ByteBuf}, byte for byte as the C {@code printf} formats in
 * {@code streaming/rrdpush.c}, {@code streaming/replication.c} and {@code streaming/sender.c} produce
 * them (see {@code docs/format/stream-sender.md}).
 *
 * <p>Nothing here allocates per call on the data path ({@code BEGIN}/{@code SET}/{@code END}; the
 * replication answers' {@code RBEGIN}/{@code RSET} go through {@code ReplayPointWriter}, which
 * uses {@link #fixed7(byte[], int, double)}): numbers are written digit by digit and the
 * {@code %0.7f} of doubles is computed from the bits of the double ({@link #writeFixed7(ByteBuf,
 * double)} itself formats into a small array first: it serves the rarer lines). Identifiers may be given as {@code String}
 * (encoded on the fly) or as pre-encoded UTF-8 {@code byte[]}.
 *
 * <p>Netdata's sender never escapes anything; a double quote or a line break inside a quoted
 * field would split the line on the parent. Such characters (which Netdata's own sanitisers
 * never let through) are replaced here: {@code "} by {@code '}, CR and LF by a space.
 * Unquoted words (GUIDs, claim ids, variable names) must not contain separators at all and are
 * refused with an {@link IllegalArgumentException}.
 */
public final class SenderWireFormat {

    /** Chart option bits for {@link #chart}: the four slots of the options field, in order. */
    public static final int CHART_OBSOLETE = 1;
    public static final int CHART_DETAIL = 2;
    public static final int CHART_STORE_FIRST = 4;
    public static final int CHART_HIDDEN = 8;

    /** Label sources ({@code RRDLABEL_SRC}): bits of the number sent with LABEL and CLABEL. */
    public static final int LABEL_SOURCE_AUTO = 1;
    public static final int LABEL_SOURCE_CONFIG = 2;
    public static final int LABEL_SOURCE_K8S = 4;
    public static final int LABEL_SOURCE_ACLK = 8;
    public static final int LABEL_FLAG_PERMANENT = 1 << 29;

    private static final byte[] CLAIMED_ID = ascii("CLAIMED_ID ");
    private static final byte[] NULL_CLAIM = ascii("NULL");
    private static final byte[] LABEL = ascii("LABEL ");
    private static final byte[] OVERWRITE_LABELS = ascii("OVERWRITE labels\n");
    private static final byte[] CHART = ascii("CHART ");
    private static final byte[] CLABEL = ascii("CLABEL ");
    private static final byte[] CLABEL_COMMIT = ascii("CLABEL_COMMIT\n");
    private static final byte[] DIMENSION = ascii("DIMENSION ");
    private static final byte[] FUNCTION = ascii("FUNCTION ");
    private static final byte[] VARIABLE_HOST = ascii("VARIABLE HOST ");
    private static final byte[] VARIABLE_CHART = ascii("VARIABLE CHART ");
    private static final byte[] CHART_DEFINITION_END = ascii("CHART_DEFINITION_END ");
    private static final byte[] BEGIN = ascii("BEGIN \"");
    private static final byte[] SET = ascii("SET \"");
    private static final byte[] QUOTE_EQUALS = ascii("\" = ");
    private static final byte[] END = ascii("END\n");
    private static final byte[] BEGIN2 = ascii("BEGIN2 \"");
    private static final byte[] SET2 = ascii("SET2 \"");
    private static final byte[] END2 = ascii("END2\n");
    private static final byte[] NO_FLAGS = ascii("''");
    private static final byte[] RBEGIN = ascii("RBEGIN \"");
    public static final byte[] RBEGIN_POINT = ascii("RBEGIN '' ");
    public static final byte[] RSET = ascii("RSET \"");
    public static final byte[] NAN_EMPTY = ascii("\" NAN \"E\"\n");
    private static final byte[] RDSTATE = ascii("RDSTATE \"");
    private static final byte[] RSSTATE = ascii("RSSTATE ");
    private static final byte[] REND = ascii("REND ");
    private static final byte[] TRUE = ascii("true");
    private static final byte[] FALSE = ascii("false");
    private static final byte[] FUNCTION_RESULT_BEGIN = ascii("FUNCTION_RESULT_BEGIN \"");
    private static final byte[] FUNCTION_RESULT_END = ascii("\nFUNCTION_RESULT_END\n");
    private static final byte[] NAN = ascii("nan");
    private static final byte[] NEGATIVE_NAN = ascii("-nan");
    private static final byte[] INF = ascii("inf");
    private static final byte[] NEGATIVE_INF = ascii("-inf");
    private static final byte[] EQUALS = ascii(" = ");

    private static final long TEN_MILLION = 10_000_000L;

    private SenderWireFormat() {
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    // ---- host level -----------------------------------------------------------------------------

    /** {@code CLAIMED_ID <machine guid> <claim id or NULL>} (capability CLAIM). */
    public static void claimedId(ByteBuf out, String machineGuid, String claimId) {
        out.writeBytes(CLAIMED_ID);
        writeWord(out, machineGuid, "machine GUID");
        out.writeByte(' ');
        if (claimId == null || claimId.isEmpty()) {
            out.writeBytes(NULL_CLAIM);
        } else {
            writeWord(out, claimId, "claim id");
        }
        out.writeByte('\n');
    }

    /** {@code LABEL "<name>" = <source> "<value>"}: the source comes before the value. */
    public static void label(ByteBuf out, String name, int source, String value) {
        out.writeBytes(LABEL);
        writeQuoted(out, name);
        out.writeBytes(EQUALS);
        writeLong(out, source);
        out.writeByte(' ');
        writeQuoted(out, value);
        out.writeByte('\n');
    }

    /** {@code OVERWRITE labels}: the LABELs since the previous one replace the host's labels. */
    public static void overwriteLabels(ByteBuf out) {
        out.writeBytes(OVERWRITE_LABELS);
    }

    /** {@code VARIABLE HOST <name> = <value %0.7f>}. */
    public static void hostVariable(ByteBuf out, String name, double value) {
        out.writeBytes(VARIABLE_HOST);
        writeWord(out, name, "variable name");
        out.writeBytes(EQUALS);
        writeFixed7(out, value);
        out.writeByte('\n');
    }

    // ---- chart definition -----------------------------------------------------------------------

    /**
     * The name field of {@code CHART}: empty when the chart's name is its id, otherwise the part of
     * the name after its first dot (empty when the name has no dot), as the C sender cuts it.
     */
    public static String chartNameField(String id, String name) {
        if (name == null || name.isEmpty() || name.equals(id)) {
            return "";
        }
        int dot = name.indexOf('.');
        return dot < 0 ? "" : name.substring(dot + 1);
    }

    /**
     * {@code CHART "<type.id>" "<name>" "<title>" "<units>" "<family>" "<context>" "<charttype>"
     * <priority> <update_every> "<obsolete> <detail> <store_first> <hidden>" "<plugin>" "<module>"}.
     *
     * @param nameField what {@link #chartNameField} gives for the chart
     * @param options   {@link #CHART_OBSOLETE} | {@link #CHART_DETAIL} | {@link #CHART_STORE_FIRST} |
     *                  {@link #CHART_HIDDEN}
     */
    public static void chart(ByteBuf out, String id, String nameField, String title, String units, String family,
                             String context, String chartType, long priority, int updateEvery, int options,
                             String plugin, String module) {
        out.writeBytes(CHART);
        writeQuoted(out, id);
        out.writeByte(' ');
        writeQuoted(out, nameField);
        out.writeByte(' ');
        writeQuoted(out, title);
        out.writeByte(' ');
        writeQuoted(out, units);
        out.writeByte(' ');
        writeQuoted(out, family);
        out.writeByte(' ');
        writeQuoted(out, context);
        out.writeByte(' ');
        writeQuoted(out, chartType);
        out.writeByte(' ');
        writeLong(out, priority);
        out.writeByte(' ');
        writeLong(out, updateEvery);
        out.writeByte(' ');
        out.writeByte('"');
        writeSlot(out, (options & CHART_OBSOLETE) != 0, "obsolete");
        out.writeByte(' ');
        writeSlot(out, (options & CHART_DETAIL) != 0, "detail");
        out.writeByte(' ');
        writeSlot(out, (options & CHART_STORE_FIRST) != 0, "store_first");
        out.writeByte(' ');
        writeSlot(out, (options & CHART_HIDDEN) != 0, "hidden");
        out.writeByte('"');
        out.writeByte(' ');
        writeQuoted(out, plugin);
        out.writeByte(' ');
        writeQuoted(out, module);
        out.writeByte('\n');
    }

    /** {@code CLABEL "<name>" "<value>" <source>}: the value comes before the source (unlike LABEL). */
    public static void chartLabel(ByteBuf out, String name, String value, int source) {
        out.writeBytes(CLABEL);
        writeQuoted(out, name);
        out.writeByte(' ');
        writeQuoted(out, value);
        out.writeByte(' ');
        writeLong(out, source);
        out.writeByte('\n');
    }

    /** {@code CLABEL_COMMIT}; the C sender writes it only after at least one CLABEL. */
    public static void chartLabelCommit(ByteBuf out) {
        out.writeBytes(CLABEL_COMMIT);
    }

    /**
     * {@code DIMENSION "<id>" "<name>" "<algorithm>" <multiplier> <divisor> "<obsolete> <hidden>
     * <noreset>"}.
     */
    public static void dimension(ByteBuf out, String id, String name, String algorithm, long multiplier,
                                 long divisor, boolean obsolete, boolean hidden, boolean noReset) {
        out.writeBytes(DIMENSION);
        writeQuoted(out, id);
        out.writeByte(' ');
        writeQuoted(out, name);
        out.writeByte(' ');
        writeQuoted(out, algorithm);
        out.writeByte(' ');
        writeLong(out, multiplier);
        out.writeByte(' ');
        writeLong(out, divisor);
        out.writeByte(' ');
        out.writeByte('"');
        writeSlot(out, obsolete, "obsolete");
        out.writeByte(' ');
        writeSlot(out, hidden, "hidden");
        out.writeByte(' ');
        writeSlot(out, noReset, "noreset");
        out.writeByte('"');
        out.writeByte('\n');
    }

    /** {@code FUNCTION "<name>" <timeout seconds> "<help>"} inside a chart definition (capability FUNCTIONS). */
    public static void function(ByteBuf out, String name, int timeoutSeconds, String help) {
        out.writeBytes(FUNCTION);
        writeQuoted(out, name);
        out.writeByte(' ');
        writeLong(out, timeoutSeconds);
        out.writeByte(' ');
        writeQuoted(out, help);
        out.writeByte('\n');
    }

    /** {@code VARIABLE CHART <name> = <value %0.7f>}, inside a definition or a BEGIN..END block. */
    public static void chartVariable(ByteBuf out, String name, double value) {
        out.writeBytes(VARIABLE_CHART);
        writeWord(out, name, "variable name");
        out.writeBytes(EQUALS);
        writeFixed7(out, value);
        out.writeByte('\n');
    }

    /** {@code CHART_DEFINITION_END <first> <last> <now>} (capability REPLICATION), unix seconds. */
    public static void chartDefinitionEnd(ByteBuf out, long firstEntrySeconds, long lastEntrySeconds,
                                          long nowSeconds) {
        out.writeBytes(CHART_DEFINITION_END);
        writeUnsigned(out, firstEntrySeconds);
        out.writeByte(' ');
        writeUnsigned(out, lastEntrySeconds);
        out.writeByte(' ');
        writeUnsigned(out, nowSeconds);
        out.writeByte('\n');
    }

    // ---- collected data -------------------------------------------------------------------------

    /** {@code BEGIN "<type.id>" <microseconds since the previous collection>}. */
    public static void begin(ByteBuf out, String chartId, long microseconds) {
        out.writeBytes(BEGIN);
        writeUtf8Sanitized(out, chartId);
        out.writeByte('"');
        out.writeByte(' ');
        writeUnsigned(out, microseconds);
        out.writeByte('\n');
    }

    /** {@link #begin(ByteBuf, String, long)} with a pre-encoded chart id. */
    public static void begin(ByteBuf out, byte[] chartIdUtf8, long microseconds) {
        out.writeBytes(BEGIN);
        out.writeBytes(chartIdUtf8);
        out.writeByte('"');
        out.writeByte(' ');
        writeUnsigned(out, microseconds);
        out.writeByte('\n');
    }

    /** {@code SET "<dimension id>" = <raw collected value>}. */
    public static void set(ByteBuf out, String dimensionId, long collectedValue) {
        out.writeBytes(SET);
        writeUtf8Sanitized(out, dimensionId);
        out.writeBytes(QUOTE_EQUALS);
        writeLong(out, collectedValue);
        out.writeByte('\n');
    }

    /** {@link #set(ByteBuf, String, long)} with a pre-encoded dimension id. */
    public static void set(ByteBuf out, byte[] dimensionIdUtf8, long collectedValue) {
        out.writeBytes(SET);
        out.writeBytes(dimensionIdUtf8);
        out.writeBytes(QUOTE_EQUALS);
        writeLong(out, collectedValue);
        out.writeByte('\n');
    }

    /** {@code END}. */
    public static void end(ByteBuf out) {
        out.writeBytes(END);
    }

    // ---- interpolated data (INTERPOLATED, 2.x) ----------------------------------------------------

    /**
     * {@code BEGIN2 "<chart id>" <update every> <end time> <wall clock>}: opens the values of the
     * slot ending at {@code endSeconds}, as the child interpolated them. Numbers in base64
     * ({@code #}) with IEEE754, else in hex ({@code 0x}), as 2.x's {@code stream_send_rrddim_metrics_v2};
     * the wall clock is {@code #} when it equals the end time.
     */
    public static void begin2(ByteBuf out, byte[] chartIdUtf8, int updateEvery, long endSeconds,
                              long wallClockSeconds, boolean ieee754) {
        out.writeBytes(BEGIN2);
        out.writeBytes(chartIdUtf8);
        out.writeByte('"');
        out.writeByte(' ');
        writeEncodedUnsigned(out, updateEvery, ieee754);
        out.writeByte(' ');
        writeEncodedUnsigned(out, endSeconds, ieee754);
        out.writeByte(' ');
        if (wallClockSeconds == endSeconds) {
            out.writeByte('#');
        } else {
            writeEncodedUnsigned(out, wallClockSeconds, ieee754);
        }
        out.writeByte('\n');
    }

    /**
     * {@code SET2 "<dimension id>" <collected> <value> <flags>}: the value is {@code #} when it
     * equals the collected value, else an IEEE754 base64 double ({@code @}) with IEEE754 or a
     * decimal without; the collected value is a signed base64 or hex integer; flags are
     * {@code A} (not anomalous), {@code R} (counter reset), both, or {@code ''}.
     */
    public static void set2(ByteBuf out, byte[] dimensionIdUtf8, long collected, double value, int storageFlags,
                            boolean ieee754) {
        out.writeBytes(SET2);
        out.writeBytes(dimensionIdUtf8);
        out.writeByte('"');
        out.writeByte(' ');
        if (ieee754) {
            NetdataNumbers.writeSignedBase64(out, collected);
        } else {
            NetdataNumbers.writeSignedHex(out, collected);
        }
        out.writeByte(' ');
        if ((double) collected == value) {
            out.writeByte('#');
        } else if (ieee754) {
            NetdataNumbers.writeDoubleBase64(out, value);
        } else {
            NetdataNumbers.writeDoubleDecimal(out, value);
        }
        out.writeByte(' ');
        writeStorageFlags(out, storageFlags);
        out.writeByte('\n');
    }

    /** {@code END2}: closes a {@link #begin2}. */
    public static void end2(ByteBuf out) {
        out.writeBytes(END2);
    }

    /** 2.x's {@code buffer_print_sn_flags} with the anomaly bit: {@code A}, {@code R}, {@code AR} or {@code ''}. */
    public static void writeStorageFlags(ByteBuf out, int storageFlags) {
        boolean printed = false;
        if ((storageFlags & StorageNumber.SN_FLAG_NOT_ANOMALOUS) != 0) {
            out.writeByte('A');
            printed = true;
        }
        if ((storageFlags & StorageNumber.SN_FLAG_RESET) != 0) {
            out.writeByte('R');
            printed = true;
        }
        if (!printed) {
            out.writeBytes(NO_FLAGS);
        }
    }

    private static void writeEncodedUnsigned(ByteBuf out, long v, boolean ieee754) {
        if (ieee754) {
            NetdataNumbers.writeUnsignedBase64(out, v);
        } else {
            NetdataNumbers.writeUnsignedHex(out, v);
        }
    }

    // ---- replication answers ----------------------------------------------------------------------

    /** {@code RBEGIN "<chart id>"}: opens a replication answer for the chart. */
    public static void replayBegin(ByteBuf out, String chartId) {
        out.writeBytes(RBEGIN);
        writeUtf8Sanitized(out, chartId);
        out.writeByte('"');
        out.writeByte('\n');
    }

    /** {@link #replayBegin(ByteBuf, String)} with a pre-encoded chart id. */
    public static void replayBegin(ByteBuf out, byte[] chartIdUtf8) {
        out.writeBytes(RBEGIN);
        out.writeBytes(chartIdUtf8);
        out.writeByte('"');
        out.writeByte('\n');
    }

    /** {@code RBEGIN '' <start> <end> <child wall clock>}: one replicated point of the current chart. */
    public static void replayPoint(ByteBuf out, long startSeconds, long endSeconds, long wallClockSeconds) {
        out.writeBytes(RBEGIN_POINT);
        writeUnsigned(out, startSeconds);
        out.writeByte(' ');
        writeUnsigned(out, endSeconds);
        out.writeByte(' ');
        writeUnsigned(out, wallClockSeconds);
        out.writeByte('\n');
    }

    /**
     * {@code RSET "<dim>" <stored value %0.7f> "<flags>"} with flags {@code R} for a counter reset.
     * A NaN value is printed as C prints it ({@code nan}), as the C sender does for an empty slot
     * inside a page.
     */
    public static void replaySet(ByteBuf out, byte[] dimensionIdUtf8, double value, boolean reset) {
        out.writeBytes(RSET);
        out.writeBytes(dimensionIdUtf8);
        out.writeByte('"');
        out.writeByte(' ');
        writeFixed7(out, value);
        out.writeByte(' ');
        out.writeByte('"');
        if (reset) {
            out.writeByte('R');
        }
        out.writeByte('"');
        out.writeByte('\n');
    }

    /** {@link #replaySet(ByteBuf, byte[], double, boolean)} with a String dimension id. */
    public static void replaySet(ByteBuf out, String dimensionId, double value, boolean reset) {
        out.writeBytes(RSET);
        writeUtf8Sanitized(out, dimensionId);
        out.writeByte('"');
        out.writeByte(' ');
        writeFixed7(out, value);
        out.writeByte(' ');
        out.writeByte('"');
        if (reset) {
            out.writeByte('R');
        }
        out.writeByte('"');
        out.writeByte('\n');
    }

    /**
     * RSET of a tier-0 storage number as the C sender derives it from the storage point: the
     * unpacked value (NaN for the empty slot) and {@code "R"} when the reset flag is set.
     */
    public static void replaySetStorageNumber(ByteBuf out, byte[] dimensionIdUtf8, int storageNumber) {
        replaySet(out, dimensionIdUtf8, StorageNumber.unpack(storageNumber),
                (storageNumber & StorageNumber.SN_FLAG_RESET) != 0);
    }

    /** {@code RSET "<dim>" NAN "E"}: the dimension has no point at this time. */
    public static void replaySetEmpty(ByteBuf out, byte[] dimensionIdUtf8) {
        out.writeBytes(RSET);
        out.writeBytes(dimensionIdUtf8);
        out.writeBytes(NAN_EMPTY);
    }

    /** {@link #replaySetEmpty(ByteBuf, byte[])} with a String dimension id. */
    public static void replaySetEmpty(ByteBuf out, String dimensionId) {
        out.writeBytes(RSET);
        writeUtf8Sanitized(out, dimensionId);
        out.writeBytes(NAN_EMPTY);
    }

    /**
     * {@code RDSTATE "<dim>" <last collected µs> <last collected value> <last calculated %0.7f>
     * <last stored %0.7f>}.
     */
    public static void replayDimensionState(ByteBuf out, byte[] dimensionIdUtf8, long lastCollectedUt,
                                            long lastCollectedValue, double lastCalculatedValue,
                                            double lastStoredValue) {
        out.writeBytes(RDSTATE);
        out.writeBytes(dimensionIdUtf8);
        out.writeByte('"');
        out.writeByte(' ');
        writeUnsigned(out, lastCollectedUt);
        out.writeByte(' ');
        writeLong(out, lastCollectedValue);
        out.writeByte(' ');
        writeFixed7(out, lastCalculatedValue);
        out.writeByte(' ');
        writeFixed7(out, lastStoredValue);
        out.writeByte('\n');
    }

    /** {@link #replayDimensionState(ByteBuf, byte[], long, long, double, double)} with a String id. */
    public static void replayDimensionState(ByteBuf out, String dimensionId, long lastCollectedUt,
                                            long lastCollectedValue, double lastCalculatedValue,
                                            double lastStoredValue) {
        replayDimensionState(out, utf8(dimensionId), lastCollectedUt, lastCollectedValue, lastCalculatedValue,
                lastStoredValue);
    }

    /** {@code RSSTATE <chart last collected µs> <chart last updated µs>}. */
    public static void replayChartState(ByteBuf out, long lastCollectedUt, long lastUpdatedUt) {
        out.writeBytes(RSSTATE);
        writeUnsigned(out, lastCollectedUt);
        out.writeByte(' ');
        writeUnsigned(out, lastUpdatedUt);
        out.writeByte('\n');
    }

    /**
     * {@code REND <update_every> <first> <last> <true|false> <after> <before> <wall clock>}: closes
     * a replication answer; {@code true} means the child resumes BEGIN/SET/END for the chart.
     */
    public static void replayEnd(ByteBuf out, int updateEvery, long firstEntrySeconds, long lastEntrySeconds,
                                 boolean startStreaming, long after, long before, long wallClockSeconds) {
        out.writeBytes(REND);
        writeLong(out, updateEvery);
        out.writeByte(' ');
        writeUnsigned(out, firstEntrySeconds);
        out.writeByte(' ');
        writeUnsigned(out, lastEntrySeconds);
        out.writeByte(' ');
        out.writeBytes(startStreaming ? TRUE : FALSE);
        out.writeByte(' ');
        writeUnsigned(out, after);
        out.writeByte(' ');
        writeUnsigned(out, before);
        out.writeByte(' ');
        writeUnsigned(out, wallClockSeconds);
        out.writeByte('\n');
    }

    // ---- replication answers in IEEE754 form (2.x) -------------------------------------------------

    /** {@code RBEGIN '' <start> <end> <wall clock>} with base64 ({@code #}) numbers, as 2.x writes it with IEEE754. */
    public static void replayPointIeee754(ByteBuf out, long startSeconds, long endSeconds, long wallClockSeconds) {
        out.writeBytes(RBEGIN_POINT);
        NetdataNumbers.writeUnsignedBase64(out, startSeconds);
        out.writeByte(' ');
        NetdataNumbers.writeUnsignedBase64(out, endSeconds);
        out.writeByte(' ');
        NetdataNumbers.writeUnsignedBase64(out, wallClockSeconds);
        out.writeByte('\n');
    }

    /**
     * {@code RSET "<dim>" <value> <flags>} as 2.x writes it with IEEE754: the value an IEEE754
     * base64 double ({@code @}), the flags unquoted ({@link #writeStorageFlags}, {@code E} for an
     * empty slot).
     */
    public static void replaySetIeee754(ByteBuf out, byte[] dimensionIdUtf8, double value, int storageFlags,
                                        boolean empty) {
        out.writeBytes(RSET);
        out.writeBytes(dimensionIdUtf8);
        out.writeByte('"');
        out.writeByte(' ');
        NetdataNumbers.writeDoubleBase64(out, empty ? Double.NaN : value);
        out.writeByte(' ');
        if (empty) {
            out.writeByte('E');
        } else {
            writeStorageFlags(out, storageFlags);
        }
        out.writeByte('\n');
    }

    /** {@link #replayDimensionState(ByteBuf, byte[], long, long, double, double)} with base64 numbers. */
    public static void replayDimensionStateIeee754(ByteBuf out, byte[] dimensionIdUtf8, long lastCollectedUt,
                                                   long lastCollectedValue, double lastCalculatedValue,
                                                   double lastStoredValue) {
        out.writeBytes(RDSTATE);
        out.writeBytes(dimensionIdUtf8);
        out.writeByte('"');
        out.writeByte(' ');
        NetdataNumbers.writeUnsignedBase64(out, lastCollectedUt);
        out.writeByte(' ');
        NetdataNumbers.writeSignedBase64(out, lastCollectedValue);
        out.writeByte(' ');
        NetdataNumbers.writeDoubleBase64(out, lastCalculatedValue);
        out.writeByte(' ');
        NetdataNumbers.writeDoubleBase64(out, lastStoredValue);
        out.writeByte('\n');
    }

    /** {@link #replayChartState} with base64 numbers. */
    public static void replayChartStateIeee754(ByteBuf out, long lastCollectedUt, long lastUpdatedUt) {
        out.writeBytes(RSSTATE);
        NetdataNumbers.writeUnsignedBase64(out, lastCollectedUt);
        out.writeByte(' ');
        NetdataNumbers.writeUnsignedBase64(out, lastUpdatedUt);
        out.writeByte('\n');
    }

    /** {@link #replayEnd} with base64 numbers. */
    public static void replayEndIeee754(ByteBuf out, int updateEvery, long firstEntrySeconds, long lastEntrySeconds,
                                        boolean startStreaming, long after, long before, long wallClockSeconds) {
        out.writeBytes(REND);
        NetdataNumbers.writeSignedBase64(out, updateEvery);
        out.writeByte(' ');
        NetdataNumbers.writeUnsignedBase64(out, firstEntrySeconds);
        out.writeByte(' ');
        NetdataNumbers.writeUnsignedBase64(out, lastEntrySeconds);
        out.writeByte(' ');
        out.writeBytes(startStreaming ? TRUE : FALSE);
        out.writeByte(' ');
        NetdataNumbers.writeUnsignedBase64(out, after);
        out.writeByte(' ');
        NetdataNumbers.writeUnsignedBase64(out, before);
        out.writeByte(' ');
        NetdataNumbers.writeUnsignedBase64(out, wallClockSeconds);
        out.writeByte('\n');
    }

    // ---- functions ------------------------------------------------------------------------------

    /**
     * {@code FUNCTION_RESULT_BEGIN "<transaction>" <code> "<content type>" <expires>}; the payload
     * follows verbatim, then {@link #functionResultEnd}.
     */
    public static void functionResultBegin(ByteBuf out, String transaction, int httpCode, String contentType,
                                           long expiresSeconds) {
        out.writeBytes(FUNCTION_RESULT_BEGIN);
        writeUtf8Sanitized(out, transaction);
        out.writeByte('"');
        out.writeByte(' ');
        writeLong(out, httpCode);
        out.writeByte(' ');
        writeQuoted(out, contentType);
        out.writeByte(' ');
        writeLong(out, expiresSeconds);
        out.writeByte('\n');
    }

    /** A newline, then {@code FUNCTION_RESULT_END} (the C sender always adds that newline). */
    public static void functionResultEnd(ByteBuf out) {
        out.writeBytes(FUNCTION_RESULT_END);
    }

    /** The whole answer of a Netdata child to a {@code FUNCTION} it does not have: 404 with Netdata's JSON. */
    public static void functionNotFound(ByteBuf out, String transaction) {
        functionResultBegin(out, transaction, 404, "application/json", 0);
        out.writeCharSequence("{\"status\":404,\"error_message\":\"No function with this name found.\"}\n",
                StandardCharsets.UTF_8);
        functionResultEnd(out);
    }

    // ---- primitives -----------------------------------------------------------------------------

    /** The UTF-8 bytes of an identifier, sanitised as every quoted field is. */
    public static byte[] utf8(String s) {
        return sanitize(s).getBytes(StandardCharsets.UTF_8);
    }

    /** Writes {@code "text"} (UTF-8, sanitised). */
    public static void writeQuoted(ByteBuf out, String text) {
        out.writeByte('"');
        writeUtf8Sanitized(out, text);
        out.writeByte('"');
    }

    private static void writeSlot(ByteBuf out, boolean on, String word) {
        if (on) {
            out.writeCharSequence(word, StandardCharsets.US_ASCII);
        }
    }

    private static void writeUtf8Sanitized(ByteBuf out, String text) {
        if (text == null || text.isEmpty()) {
            return;
        }
        if (needsSanitizing(text)) {
            ByteBufUtil.writeUtf8(out, sanitize(text));
        } else {
            ByteBufUtil.writeUtf8(out, text);
        }
    }

    private static boolean needsSanitizing(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\n' || c == '\r') {
                return true;
            }
        }
        return false;
    }

    private static String sanitize(String s) {
        if (s == null) {
            return "";
        }
        if (!needsSanitizing(s)) {
            return s;
        }
        return s.replace('"', '\'').replace('\n', ' ').replace('\r', ' ');
    }

    /** An unquoted word: the parent splits on spaces, tabs, line ends, '=' and quotes. */
    private static void writeWord(ByteBuf out, String word, String what) {
        if (word == null || word.isEmpty()) {
            throw new IllegalArgumentException(what + " is empty; an unquoted protocol word needs at least one character");
        }
        for (int i = 0; i < word.length(); i++) {
            char c = word.charAt(i);
            if (c <= ' ' || c == '=' || c == '"' || c == '\'' || c == 0x7F) {
                throw new IllegalArgumentException(what + " '" + word + "' contains a character (code " + (int) c
                        + " at index " + i + ") that would split the line on the parent");
            }
        }
        ByteBufUtil.writeUtf8(out, word);
    }

    /** Signed decimal ({@code %lld}). */
    public static void writeLong(ByteBuf out, long v) {
        if (v < 0) {
            out.writeByte('-');
            if (v == Long.MIN_VALUE) {
                // -(MIN_VALUE) does not fit: its magnitude is the unsigned 2^63
                writeUnsigned(out, v);
                return;
            }
            v = -v;
        }
        writeUnsigned(out, v);
    }

    /** Unsigned decimal ({@code %llu}): a negative long is printed as its unsigned 64-bit value. */
    public static void writeUnsigned(ByteBuf out, long v) {
        if (v < 0) {
            long q = Long.divideUnsigned(v, 10);
            writePositive(out, q);
            out.writeByte((int) ('0' + Long.remainderUnsigned(v, 10)));
            return;
        }
        writePositive(out, v);
    }

    private static void writePositive(ByteBuf out, long v) {
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        out.ensureWritable(digits);
        int end = out.writerIndex() + digits;
        int at = end;
        do {
            out.setByte(--at, (int) ('0' + v % 10));
            v /= 10;
        } while (v != 0);
        out.writerIndex(end);
    }

    /**
     * Writes {@code v} as C's {@code printf("%0.7f", v)} with glibc: the exact binary value
     * rounded half-to-even at the seventh decimal, a minus sign for any negative value (also one
     * that rounds to zero, and -0.0), {@code nan}/{@code -nan} and {@code inf}/{@code -inf}.
     * Magnitudes below 2^63 take an exact integer path; larger ones (beyond any collected value)
     * fall back to BigDecimal. The replication data path formats through
     * {@link #fixed7(byte[], int, double)} instead (see {@code ReplayPointWriter}).
     */
    public static void writeFixed7(ByteBuf out, double v) {
        byte[] digits = new byte[FIXED7_MAX_BYTES];
        int n = fixed7(digits, 0, v);
        if (n < 0) {
            writeFixed7Slow(out, v);
            return;
        }
        out.writeBytes(digits, 0, n);
    }

    /** The most bytes {@link #fixed7(byte[], int, double)} writes: sign, 20 digits, point, 7 decimals. */
    public static final int FIXED7_MAX_BYTES = 32;

    /**
     * {@link #writeFixed7(ByteBuf, double)} into {@code dst} at {@code at} (room for
     * {@link #FIXED7_MAX_BYTES} bytes); returns the index after the last byte written, or -1 for a
     * magnitude of 2^63 or more, which the caller formats with {@link #writeFixed7(ByteBuf, double)}.
     */
    public static int fixed7(byte[] dst, int at, double v) {
        long bits = Double.doubleToRawLongBits(v);
        boolean negative = bits < 0;
        if (Double.isNaN(v)) {
            return put(dst, at, negative ? NEGATIVE_NAN : NAN);
        }
        if (Double.isInfinite(v)) {
            return put(dst, at, negative ? NEGATIVE_INF : INF);
        }
        int biased = (int) ((bits >>> 52) & 0x7FF);
        long fraction = bits & ((1L << 52) - 1);
        long mantissa;
        int exponent;
        if (biased == 0) {
            mantissa = fraction;
            exponent = -1074;
        } else {
            mantissa = fraction | (1L << 52);
            exponent = biased - 1075;
        }
        // v = mantissa * 2^exponent, mantissa < 2^53
        long integral;
        long decimals;
        if (mantissa == 0) {
            integral = 0;
            decimals = 0;
        } else if (exponent >= 0) {
            if (exponent > 9) {
                return -1;
            }
            integral = mantissa << exponent;
            decimals = 0;
        } else {
            int k = -exponent;
            long fracBits;
            if (k >= 64) {
                integral = 0;
                fracBits = mantissa;
            } else {
                integral = mantissa >>> k;
                fracBits = mantissa & ((1L << k) - 1);
            }
            decimals = roundedDecimals(fracBits, k);
            if (decimals == TEN_MILLION) {
                integral++;
                decimals = 0;
            }
        }
        if (negative) {
            dst[at++] = '-';
        }
        at = positive(dst, at, integral);
        dst[at++] = '.';
        twoDigitsBackwards(dst, at + 7, decimals, 7);
        return at + 7;
    }

    /** "00".."99": two digits per division, half the divisions of a digit at a time. */
    private static final byte[] TWO_DIGITS = new byte[200];
    private static final long[] POWERS_OF_TEN = new long[19];

    static {
        for (int i = 0; i < 100; i++) {
            TWO_DIGITS[2 * i] = (byte) ('0' + i / 10);
            TWO_DIGITS[2 * i + 1] = (byte) ('0' + i % 10);
        }
        long p = 1;
        for (int i = 0; i < POWERS_OF_TEN.length; i++) {
            POWERS_OF_TEN[i] = p;
            p *= 10;
        }
    }

    /** {@code v >= 0} in decimal into {@code dst} at {@code at}; returns the index after it. */
    public static int positive(byte[] dst, int at, long v) {
        // digits from the bit length: 1233/4096 ~ log10(2), corrected by one comparison
        int guess = ((64 - Long.numberOfLeadingZeros(v | 1)) * 1233) >>> 12;
        int digits = guess < POWERS_OF_TEN.length && v >= POWERS_OF_TEN[guess] ? guess + 1 : Math.max(guess, 1);
        int end = at + digits;
        twoDigitsBackwards(dst, end, v, digits);
        return end;
    }

    /** The last {@code digits} digits of {@code v >= 0} into {@code dst[end - digits, end)}, leading zeros kept. */
    public static void twoDigitsBackwards(byte[] dst, int end, long v, int digits) {
        int i = end;
        int stop = end - digits;
        while (i - stop >= 2) {
            int r = (int) (v % 100);
            v /= 100;
            dst[--i] = TWO_DIGITS[2 * r + 1];
            dst[--i] = TWO_DIGITS[2 * r];
        }
        if (i > stop) {
            dst[--i] = (byte) ('0' + v % 10);
        }
    }

    public static int put(byte[] dst, int at, byte[] bytes) {
        System.arraycopy(bytes, 0, dst, at, bytes.length);
        return at + bytes.length;
    }

    /**
     * round_half_even(fracBits * 10^7 / 2^k) for fracBits < 2^min(k,53): the 128-bit product is
     * split into (hi, lo) and shifted right by k, the remainder compared with one half.
     */
    private static long roundedDecimals(long fracBits, int k) {
        if (fracBits == 0) {
            return 0;
        }
        // fracBits * 10^7 < 2^77: anything shifted by more than 77 bits is below one half
        if (k > 77) {
            return 0;
        }
        long hi = Math.multiplyHigh(fracBits, TEN_MILLION);
        long lo = fracBits * TEN_MILLION;
        long quotient;
        int cmp; // remainder compared with 2^(k-1)
        if (k < 64) {
            quotient = (hi << (64 - k)) | (lo >>> k);
            long rem = lo & ((1L << k) - 1);
            long half = 1L << (k - 1);
            cmp = Long.compareUnsigned(rem, half);
        } else if (k == 64) {
            quotient = hi;
            cmp = Long.compareUnsigned(lo, 1L << 63);
        } else {
            quotient = hi >>> (k - 64);
            long remHi = hi & ((1L << (k - 64)) - 1);
            long halfHi = 1L << (k - 65);
            if (remHi != halfHi) {
                cmp = Long.compareUnsigned(remHi, halfHi);
            } else {
                cmp = lo == 0 ? 0 : 1;
            }
        }
        if (cmp > 0 || (cmp == 0 && (quotient & 1) != 0)) {
            quotient++;
        }
        return quotient;
    }

    private static void writeFixed7Slow(ByteBuf out, double v) {
        String s = new BigDecimal(v).setScale(7, RoundingMode.HALF_EVEN).toPlainString();
        out.writeCharSequence(s, StandardCharsets.US_ASCII);
    }
}
