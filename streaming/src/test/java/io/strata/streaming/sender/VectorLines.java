package io.strata.streaming.sender;

import io.netty.buffer.ByteBuf;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Test helper: reads the vector excerpts and re-writes a captured line through
 * {@link SenderWireFormat}, choosing the method by keyword. The word splitting here is a plain
 * test splitter (quotes, spaces and '='), not the production tokenizer. Shared with the modules
 * after streaming through its test jar (the vectors it reads come with it).
 */
public final class VectorLines {
    private VectorLines() {
    }

    public static String resource(String name) throws IOException {
        try (InputStream in = VectorLines.class.getResourceAsStream("/vectors/netdata-1.37.1/" + name)) {
            if (in == null) {
                throw new IOException("missing test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    public static List<String> lines(String name) throws IOException {
        String text = resource(name);
        List<String> out = new ArrayList<>();
        for (String l : text.split("\n", -1)) {
            if (!l.isEmpty()) {
                out.add(l);
            }
        }
        return out;
    }

    /** Words of a line: separators space and '='; "..." and '...' are one word without the quotes. */
    public static List<String> words(String line) {
        List<String> w = new ArrayList<>();
        int i = 0;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (c == ' ' || c == '=') {
                i++;
                continue;
            }
            if (c == '"' || c == '\'') {
                int close = line.indexOf(c, i + 1);
                w.add(line.substring(i + 1, close));
                i = close + 1;
                continue;
            }
            int e = i;
            while (e < line.length() && line.charAt(e) != ' ' && line.charAt(e) != '=') {
                e++;
            }
            w.add(line.substring(i, e));
            i = e;
        }
        return w;
    }

    public static int chartOptions(String slots) {
        int o = 0;
        for (String s : slots.split(" ")) {
            switch (s) {
                case "obsolete" -> o |= SenderWireFormat.CHART_OBSOLETE;
                case "detail" -> o |= SenderWireFormat.CHART_DETAIL;
                case "store_first" -> o |= SenderWireFormat.CHART_STORE_FIRST;
                case "hidden" -> o |= SenderWireFormat.CHART_HIDDEN;
                case "" -> { }
                default -> throw new IllegalArgumentException(s);
            }
        }
        return o;
    }

    /** Writes the line again with SenderWireFormat. */
    public static void rewrite(ByteBuf out, String line) {
        List<String> w = words(line);
        switch (w.get(0)) {
            case "CLAIMED_ID" -> SenderWireFormat.claimedId(out, w.get(1), w.get(2).equals("NULL") ? null : w.get(2));
            case "LABEL" -> SenderWireFormat.label(out, w.get(1), Integer.parseInt(w.get(2)), w.get(3));
            case "OVERWRITE" -> SenderWireFormat.overwriteLabels(out);
            case "CHART" -> SenderWireFormat.chart(out, w.get(1), w.get(2), w.get(3), w.get(4), w.get(5), w.get(6),
                    w.get(7), Long.parseLong(w.get(8)), Integer.parseInt(w.get(9)), chartOptions(w.get(10)), w.get(11),
                    w.get(12));
            case "CLABEL" -> SenderWireFormat.chartLabel(out, w.get(1), w.get(2), Integer.parseInt(w.get(3)));
            case "CLABEL_COMMIT" -> SenderWireFormat.chartLabelCommit(out);
            case "DIMENSION" -> {
                String o = w.get(6);
                SenderWireFormat.dimension(out, w.get(1), w.get(2), w.get(3), Long.parseLong(w.get(4)),
                        Long.parseLong(w.get(5)), o.contains("obsolete"), o.contains("hidden"), o.contains("noreset"));
            }
            case "VARIABLE" -> {
                if (w.get(1).equals("HOST")) {
                    SenderWireFormat.hostVariable(out, w.get(2), Double.parseDouble(w.get(3)));
                } else {
                    SenderWireFormat.chartVariable(out, w.get(2), Double.parseDouble(w.get(3)));
                }
            }
            case "CHART_DEFINITION_END" -> SenderWireFormat.chartDefinitionEnd(out, Long.parseLong(w.get(1)),
                    Long.parseLong(w.get(2)), Long.parseLong(w.get(3)));
            case "BEGIN" -> SenderWireFormat.begin(out, w.get(1), Long.parseLong(w.get(2)));
            case "SET" -> SenderWireFormat.set(out, w.get(1), Long.parseLong(w.get(2)));
            case "END" -> SenderWireFormat.end(out);
            case "RBEGIN" -> {
                if (w.size() == 2) {
                    SenderWireFormat.replayBegin(out, w.get(1));
                } else {
                    SenderWireFormat.replayPoint(out, Long.parseLong(w.get(2)), Long.parseLong(w.get(3)),
                            Long.parseLong(w.get(4)));
                }
            }
            case "RSET" -> {
                if (w.get(3).equals("E")) {
                    SenderWireFormat.replaySetEmpty(out, w.get(1));
                } else {
                    SenderWireFormat.replaySet(out, w.get(1), Double.parseDouble(w.get(2)), w.get(3).contains("R"));
                }
            }
            case "RDSTATE" -> SenderWireFormat.replayDimensionState(out, w.get(1), Long.parseLong(w.get(2)),
                    Long.parseLong(w.get(3)), Double.parseDouble(w.get(4)), Double.parseDouble(w.get(5)));
            case "RSSTATE" -> SenderWireFormat.replayChartState(out, Long.parseLong(w.get(1)), Long.parseLong(w.get(2)));
            case "REND" -> SenderWireFormat.replayEnd(out, Integer.parseInt(w.get(1)), Long.parseLong(w.get(2)),
                    Long.parseLong(w.get(3)), w.get(4).equals("true"), Long.parseLong(w.get(5)),
                    Long.parseLong(w.get(6)), Long.parseLong(w.get(7)));
            default -> throw new IllegalArgumentException("no rewrite for: " + line);
        }
    }
}
