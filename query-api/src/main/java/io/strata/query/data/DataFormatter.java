package io.strata.query.data;

import io.strata.query.text.Out;

import java.time.ZoneId;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.Instant;
import java.util.Map;
import java.util.LinkedHashSet;
import io.strata.query.catalog.ChartView;

/**
 * Prints a {@link DataResult} in the requested format, byte for byte the way Netdata 1.37 lays
 * out each format (rows newest first unless {@code flip}), optionally inside the {@code jsonwrap}
 * wrapper, and inside the JSONP or Google data-source call. Values are transformed as they are
 * printed ({@code abs}, {@code percentage} of the row's total over every queried dimension,
 * {@code null2zero}), never stored twice. Printing counts against the query's deadline
 * ({@link QueryBudget#cells}): past it, {@link #write} throws the 504 the engine read would.
 */
public final class DataFormatter {

    private final DataResult r;
    private final Out out;
    private final long options;
    private final ZoneId zone;
    private final DataFormat format;
    /** Min and max of what was printed, for the wrapper when the printed values are not the stored ones. */
    private double printedMin = Double.NaN;
    private double printedMax = Double.NaN;

    private DataFormatter(DataResult r, Out out, ZoneId zone) {
        this.r = r;
        this.out = out;
        this.options = r.options;
        this.zone = zone;
        this.format = r.request.format;
    }

    /** Writes the whole body of the answer. */
    public static void write(DataResult r, Out out, ZoneId zone) {
        new DataFormatter(r, out, zone).write();
    }

    /** Netdata signs a data source with the chart's last collection time, which is never in the future. */
    private long lastUpdated() {
        return Math.min(r.dbLast, r.wallClock);
    }

    /**
     * A row's time as a number: seconds, or with {@code ms} the seconds followed by {@code 000} (no
     * overflow for any time), except time 0, which {@code 0000} would not write as a number.
     */
    private void timeValue(long t) {
        out.integer(t);
        if (has(DataOptions.MILLISECONDS) && t != 0) {
            out.a("000");
        }
    }

    private boolean has(long flag) {
        return (options & flag) != 0;
    }

    private void write() {
        DataRequest req = r.request;
        if (format == DataFormat.DATASOURCE) {
            String handler = req.callback != null ? req.callback : "google.visualization.Query.setResponse";
            if (req.googleTimestamp >= lastUpdated() && req.googleTimestamp > 0) {
                out.a(handler).a("({version:'").a(req.googleVersion).a("',reqId:'").a(req.googleReqId)
                        .a("',status:'error',errors:[{reason:'not_modified',message:'Data not modified'}]});");
                return;
            }
            out.a(handler).a("({version:'").a(req.googleVersion).a("',reqId:'").a(req.googleReqId)
                    .a("',status:'ok',sig:'").integer(lastUpdated()).a("',table:");
        } else if (format == DataFormat.JSONP) {
            out.a(req.callback != null ? req.callback : "callback").ch('(');
        }
        boolean wrap = has(DataOptions.JSON_WRAP);
        if (wrap) {
            wrapperBegin();
        }
        if (wrap && format.textResult()) {
            // the text formats become one JSON string inside the wrapper
            Out text = new Out(16 * 1024);
            DataFormatter inner = new DataFormatter(r, text, zone);
            inner.insideWrapper = true;
            inner.body();
            printedMin = inner.printedMin;
            printedMax = inner.printedMax;
            out.ch(sq).jsonEscaped(text.text()).ch(sq);
        } else {
            body();
        }
        if (wrap) {
            wrapperEnd();
        }
        if (format == DataFormat.DATASOURCE) {
            out.a("});");
        } else if (format == DataFormat.JSONP) {
            out.a(");");
        }
    }

    /** True for the text of a text format inside the jsonwrap wrapper. */
    private boolean insideWrapper;

    private void body() {
        switch (format) {
            case DATATABLE, DATASOURCE -> dataTable();
            case JSON, JSONP -> json();
            // inside the jsonwrap wrapper Netdata ends these lines with \n alone
            case CSV -> csv("", ",", insideWrapper ? "\n" : "\r\n", "", false);
            case TSV -> csv("", "\t", insideWrapper ? "\n" : "\r\n", "", false);
            case MARKDOWN -> csv("", "|", insideWrapper ? "\n" : "\r\n", "", false);
            case HTML -> {
                out.a("<html>\n<center>\n<table border=\"0\" cellpadding=\"5\" cellspacing=\"5\">\n");
                csv("<tr><td>", "</td><td>", "</td></tr>\n", "", false);
                out.a("</table>\n</center>\n</html>\n");
            }
            case CSV_JSON_ARRAY -> {
                out.a("[\n");
                csv("[", ",", "]", ",\n", true);
                out.a("\n]");
            }
            case SSV -> values("", " ", "");
            case SSV_COMMA -> values("", ",", "");
            case ARRAY -> values("[", ",", "]");
        }
    }

    // ---- rows ---------------------------------------------------------------------------------

    private int firstRow() {
        return has(DataOptions.REVERSED) ? 0 : r.rows - 1;
    }

    private int rowStep() {
        return has(DataOptions.REVERSED) ? 1 : -1;
    }

    /** The divisor of {@code percentage} for a row: the sum over every queried column, never 0. */
    private double rowTotal(int row) {
        if (!has(DataOptions.PERCENTAGE)) {
            return 1;
        }
        rangeReset = true;
        double total = 0;
        for (int c = 0; c < r.columns; c++) {
            double v = r.value(row, c);
            if (!Double.isNaN(v)) {
                total += has(DataOptions.ABSOLUTE) && v < 0 ? -v : v;
            }
        }
        return total == 0 ? 1 : total;
    }

    /** A cell as printed: abs and percentage applied; NaN stays NaN (empty). */
    private double cell(int row, int c, double total) {
        double v = r.value(row, c);
        if (Double.isNaN(v)) {
            return v;
        }
        if (has(DataOptions.ABSOLUTE) && v < 0) {
            v = -v;
        }
        if (has(DataOptions.PERCENTAGE)) {
            v = v * 100 / total;
            if (rangeReset) {
                // Netdata restarts min and max at each row's first percentage: they end as the last row's
                printedMin = v;
                printedMax = v;
                rangeReset = false;
            } else {
                track(v);
            }
        }
        return v;
    }

    /** Set by {@link #rowTotal} at each row with {@code percentage}: the next cell restarts min and max. */
    private boolean rangeReset;

    private void track(double v) {
        if (Double.isNaN(printedMin) || v < printedMin) {
            printedMin = v;
        }
        if (Double.isNaN(printedMax) || v > printedMax) {
            printedMax = v;
        }
    }

    private void value(double v) {
        if (Double.isNaN(v)) {
            out.a(has(DataOptions.NULL2ZERO) ? "0" : "null");
        } else {
            out.number(v);
        }
    }

    private void json() {
        boolean objectRows = has(DataOptions.OBJECT_ROWS);
        boolean jsDates = has(DataOptions.GOOGLE_JSON);
        out.a("{\n \"labels\": [\"time\"");
        int shown = 0;
        for (int c = 0; c < r.columns; c++) {
            if (r.shown(c)) {
                out.a(",").jsonString(r.names[c]);
                shown++;
            }
        }
        if (shown == 0) {
            out.a(",\"no data\"");
        }
        out.a("],\n    \"data\":\n [\n");
        if (shown > 0) {
            boolean firstLine = true;
            for (int i = firstRow(); i >= 0 && i < r.rows; i += rowStep()) {
                r.budget.cells(r.columns);
                if (!firstLine) {
                    out.a(",\n");
                }
                firstLine = false;
                out.a(objectRows ? " { " : " [ ");
                if (objectRows) {
                    out.a("\"time\": ");
                }
                if (jsDates) {
                    out.a("new ");
                    jsDate(r.rowTime(i));
                } else {
                    timeValue(r.rowTime(i));
                }
                double total = rowTotal(i);
                for (int c = 0; c < r.columns; c++) {
                    if (!r.shown(c)) {
                        continue;
                    }
                    out.ch(',');
                    if (objectRows) {
                        out.jsonString(r.names[c]).a(": ");
                    }
                    value(cell(i, c, total));
                }
                out.a(objectRows ? "}" : "]");
            }
        }
        out.a("\n]\n}");
    }

    private void dataTable() {
        boolean google = has(DataOptions.GOOGLE_JSON);
        String kq = google ? "" : "\"";
        String sq = google ? "'" : "\"";
        out.a("{\n ").a(kq).a("cols").a(kq).a(":\n [\n");
        out.a("        {").a(kq).a("id").a(kq).a(":").a(sq).a(sq).a(",").a(kq).a("label").a(kq).a(":").a(sq).a("time")
                .a(sq).a(",").a(kq).a("pattern").a(kq).a(":").a(sq).a(sq).a(",").a(kq).a("type").a(kq).a(":").a(sq)
                .a("datetime").a(sq).a("},\n");
        for (String role : new String[] {"annotation", "annotationText"}) {
            out.a("        {").a(kq).a("id").a(kq).a(":").a(sq).a(sq).a(",").a(kq).a("label").a(kq).a(":").a(sq).a(sq)
                    .a(",").a(kq).a("pattern").a(kq).a(":").a(sq).a(sq).a(",").a(kq).a("type").a(kq).a(":").a(sq)
                    .a("string").a(sq).a(",").a(kq).a("p").a(kq).a(":{").a(kq).a("role").a(kq).a(":").a(sq).a(role)
                    .a(sq).a("}}");
            out.a(role.equals("annotation") ? ",\n" : "");
        }
        boolean anyShown = false;
        for (int c = 0; c < r.columns; c++) {
            anyShown |= r.shown(c);
        }
        for (int c = 0; c <= r.columns; c++) {
            // no dimension shown: rrdr2json (which writes the datatable too) adds a "no data" column
            if (c == r.columns ? anyShown : !r.shown(c)) {
                continue;
            }
            String label = c == r.columns ? "no data" : r.names[c];
            out.a(",\n     {").a(kq).a("id").a(kq).a(":").a(sq).a(sq).a(",").a(kq).a("label").a(kq).a(":").a(sq);
            if (google) {
                out.jsonEscaped(label.replace("'", "\\'"));
            } else {
                out.jsonEscaped(label);
            }
            out.a(sq).a(",").a(kq).a("pattern").a(kq).a(":").a(sq).a(sq).a(",").a(kq).a("type").a(kq).a(":").a(sq)
                    .a("number").a(sq).a("}");
        }
        out.a("\n  ],\n    ").a(kq).a("rows").a(kq).a(":\n [\n");
        boolean firstLine = true;
        // no dimension shown: no row either (rrdr2json)
        for (int i = firstRow(); anyShown && i >= 0 && i < r.rows; i += rowStep()) {
            r.budget.cells(r.columns);
            if (!firstLine) {
                out.a(",\n");
            }
            firstLine = false;
            out.a("        {").a(kq).a("c").a(kq).a(":[{").a(kq).a("v").a(kq).a(":").a(sq);
            jsDate(r.rowTime(i));
            out.a(sq).a("},{").a(kq).a("v").a(kq).a(":null},{").a(kq).a("v").a(kq).a(":null}");
            double total = rowTotal(i);
            for (int c = 0; c < r.columns; c++) {
                if (!r.shown(c)) {
                    continue;
                }
                out.a(",{").a(kq).a("v").a(kq).a(":");
                value(cell(i, c, total));
                out.a("}");
            }
            out.a("]}");
        }
        out.a("\n]\n}");
    }

    /**
     * {@code t} in the server's zone. A window pushed past what a calendar holds (a huge
     * {@code gtime}, {@code after} or {@code points}) is written at the calendar's first or last
     * second rather than failing the whole answer.
     */
    private ZonedDateTime zoned(long t) {
        return Instant.ofEpochSecond(Math.max(FIRST_CALENDAR_SECOND, Math.min(LAST_CALENDAR_SECOND, t))).atZone(zone);
    }

    /** The seconds a date-time of any zone holds (a day inside LocalDateTime's range at each end). */
    private static final long FIRST_CALENDAR_SECOND = LocalDateTime.MIN.toEpochSecond(ZoneOffset.UTC) + 86_400;
    private static final long LAST_CALENDAR_SECOND = LocalDateTime.MAX.toEpochSecond(ZoneOffset.UTC) - 86_400;

    /** {@code Date(y,m,d,h,mi,s)} in the server's zone, January being month 0, as JavaScript wants. */
    private void jsDate(long t) {
        ZonedDateTime z = zoned(t);
        out.a("Date(").integer(z.getYear()).ch(',').integer(z.getMonthValue() - 1).ch(',').integer(z.getDayOfMonth())
                .ch(',').integer(z.getHour()).ch(',').integer(z.getMinute()).ch(',').integer(z.getSecond()).ch(')');
    }

    private void csv(String startLine, String separator, String endLine, String betweenLines, boolean quoteLabels) {
        int shown = r.shownColumns();
        // Netdata starts the header with the first shown column: without one, the header is its line end alone
        if (shown > 0) {
            out.a(startLine).a(quoteLabels ? "\"time\"" : "time");
        }
        for (int c = 0; c < r.columns; c++) {
            if (r.shown(c)) {
                out.a(separator);
                if (quoteLabels) {
                    out.jsonString(r.names[c]);
                } else {
                    out.utf8(r.names[c]);
                }
            }
        }
        out.a(endLine);
        if (format == DataFormat.MARKDOWN) {
            if (shown > 0) {
                out.a(startLine).a(":---:");
            }
            for (int c = 0; c < r.columns; c++) {
                if (r.shown(c)) {
                    out.a(separator).a(":---:");
                }
            }
            out.a(endLine);
        }
        if (shown == 0) {
            return;
        }
        for (int i = firstRow(); i >= 0 && i < r.rows; i += rowStep()) {
            r.budget.cells(r.columns);
            out.a(betweenLines).a(startLine);
            long t = r.rowTime(i);
            if (has(DataOptions.SECONDS) || has(DataOptions.MILLISECONDS)) {
                timeValue(t);
            } else {
                ZonedDateTime z = zoned(t);
                out.integer(z.getYear()).ch('-').twoDigits(z.getMonthValue()).ch('-').twoDigits(z.getDayOfMonth())
                        .ch(' ').twoDigits(z.getHour()).ch(':').twoDigits(z.getMinute()).ch(':').twoDigits(z.getSecond());
            }
            double total = rowTotal(i);
            for (int c = 0; c < r.columns; c++) {
                if (r.shown(c)) {
                    out.a(separator);
                    value(cell(i, c, total));
                }
            }
            out.a(endLine);
        }
    }

    /** One number per row: the sum of its shown cells (or max − min with {@code min2max}); {@code ssv} and {@code array}. */
    private void values(String prefix, String separator, String suffix) {
        out.a(prefix);
        boolean firstValue = true;
        for (int i = firstRow(); i >= 0 && i < r.rows; i += rowStep()) {
            r.budget.cells(r.columns);
            if (!firstValue) {
                out.a(separator);
            }
            boolean firstRowPrinted = firstValue;
            firstValue = false;
            // rowValue restarts min and max at the row's cells with percentage (rrdr2value); then, as
            // Netdata's ssv, the first row's value sets them and every later one widens them (a row
            // of nulls counts as 0)
            double v = rowValue(i);
            double forRange = Double.isNaN(v) ? 0 : v;
            if (firstRowPrinted) {
                printedMin = forRange;
                printedMax = forRange;
            } else {
                track(forRange);
            }
            if (Double.isNaN(v)) {
                out.a(has(DataOptions.NULL2ZERO) ? "0" : "null");
            } else {
                out.number(v);
            }
        }
        out.a(suffix);
    }

    /**
     * Netdata's {@code rrdr2value}: the row's shown cells summed, or max − min with {@code min2max},
     * where min and max start from 0 and the first cell (so one positive cell gives itself) and an
     * empty cell counts as 0 in them (not in the sum); NaN when every cell is empty.
     */
    private double rowValue(int row) {
        double total = rowTotal(row);
        double sum = 0;
        double min = 0;
        double max = 0;
        boolean init = true;
        boolean allNull = true;
        for (int c = 0; c < r.columns; c++) {
            if (!r.shown(c)) {
                continue;
            }
            double v = r.value(row, c);
            boolean empty = Double.isNaN(v);
            double n = empty ? 0 : v;
            if (has(DataOptions.ABSOLUTE) && n < 0) {
                n = -n;
            }
            if (has(DataOptions.PERCENTAGE)) {
                n = n * 100 / total;
                if (rangeReset) {
                    printedMin = n;
                    printedMax = n;
                    rangeReset = false;
                } else {
                    track(n);
                }
            }
            if (init) {
                min = n > 0 ? 0 : n;
                max = n > 0 ? n : 0;
                init = false;
            }
            if (!empty) {
                allNull = false;
                sum += n;
            }
            min = Math.min(min, n);
            max = Math.max(max, n);
        }
        if (allNull) {
            return Double.NaN;
        }
        return has(DataOptions.MIN2MAX) ? max - min : sum;
    }

    // ---- jsonwrap -----------------------------------------------------------------------------

    /** The wrapper's key and string quotes: none and ' with google_json, as Netdata writes them. */
    private String kq = "\"";
    private char sq = '"';

    private void wrapperBegin() {
        if (has(DataOptions.GOOGLE_JSON)) {
            kq = "";
            sq = '\'';
        }
        QueryWindow w = r.window;
        String id = queryId();
        out.a("{\n   ").a(kq).a("api").a(kq).a(": 1,\n   ").a(kq).a("id").a(kq).a(": ").quoted(sq, id).a(",\n   ").a(kq).a("name").a(kq).a(": ").quoted(sq, id)
                .a(",\n   ").a(kq).a("view_update_every").a(kq).a(": ").integer(w.viewUpdateEvery())
                .a(",\n   ").a(kq).a("update_every").a(kq).a(": ").integer(r.updateEvery)
                .a(",\n   ").a(kq).a("first_entry").a(kq).a(": ").integer(r.dbFirst)
                .a(",\n   ").a(kq).a("last_entry").a(kq).a(": ").integer(r.dbLast)
                .a(",\n   ").a(kq).a("before").a(kq).a(": ").integer(w.before())
                .a(",\n   ").a(kq).a("after").a(kq).a(": ").integer(w.after())
                .a(",\n   ").a(kq).a("group").a(kq).a(": ").quoted(sq, r.request.group.name())
                .a(",\n   ").a(kq).a("options").a(kq).a(": ").quoted(sq, DataOptions.render(options))
                .a(",\n   ").a(kq).a("dimension_names").a(kq).a(": [");
        list(r.names);
        out.a("],\n   ").a(kq).a("dimension_ids").a(kq).a(": [");
        list(r.ids);
        out.a("],\n");
        if (has(DataOptions.ALL_DIMENSIONS)) {
            allDimensions();
        }
        out.a("   ").a(kq).a("functions").a(kq).a(": [],\n");
        if (DataRequest.given(r.request.context)) {
            out.a("   ").a(kq).a("chart_ids").a(kq).a(": [");
            list(r.chartIds);
            out.a("],\n");
        }
        out.a("   ").a(kq).a("latest_values").a(kq).a(": [");
        boolean first = true;
        for (int c = 0; c < r.columns; c++) {
            if (r.shown(c)) {
                out.a(first ? "" : ", ").number(r.latest[c]);
                first = false;
            }
        }
        out.a("],\n   ").a(kq).a("view_latest_values").a(kq).a(": [");
        first = true;
        int newest = r.rows - 1;
        double total = rowTotal(newest);
        for (int c = 0; c < r.columns; c++) {
            if (r.shown(c)) {
                double v = r.value(newest, c);
                if (!Double.isNaN(v)) {
                    if (has(DataOptions.ABSOLUTE) && v < 0) {
                        v = -v;
                    }
                    if (has(DataOptions.PERCENTAGE)) {
                        v = v * 100 / total;
                    }
                }
                out.a(first ? "" : ", ").number(v);
                first = false;
            }
        }
        out.a("],\n   ").a(kq).a("dimensions").a(kq).a(": ").integer(r.shownColumns())
                .a(",\n   ").a(kq).a("points").a(kq).a(": ").integer(r.rows)
                .a(",\n   ").a(kq).a("format").a(kq).a(": ").quoted(sq, format.wrapperName())
                .a(",\n   ").a(kq).a("db_points_per_tier").a(kq).a(": [ ");
        for (int t = 0; t < r.pointsPerTier.length; t++) {
            out.a(t == 0 ? "" : ", ").integer(r.pointsPerTier[t]);
        }
        out.a(" ],\n   ").a(kq).a("result").a(kq).a(": ");
    }

    private void list(String[] items) {
        boolean first = true;
        for (int c = 0; c < r.columns; c++) {
            if (r.shown(c)) {
                out.a(first ? "" : ", ").quoted(sq, items[c]);
                first = false;
            }
        }
    }

    private void wrapperEnd() {
        double min = r.min;
        double max = r.max;
        boolean printed = has(DataOptions.PERCENTAGE) || format == DataFormat.ARRAY || format == DataFormat.SSV
                || format == DataFormat.SSV_COMMA;
        if (printed) {
            min = Double.isNaN(printedMin) ? 0 : printedMin;
            max = Double.isNaN(printedMax) ? 0 : printedMax;
        }
        out.a(",\n ").a(kq).a("min").a(kq).a(": ").number(min).a(",\n ").a(kq).a("max").a(kq).a(": ").number(max).a("\n}\n");
    }

    /**
     * {@code all-dimensions}: every dimension and chart of the query target and the charts'
     * labels, each {@code ["a","b"]} pair once, in the order met (Netdata's dictionaries).
     */
    private void allDimensions() {
        LinkedHashSet<String> seen = new LinkedHashSet<>();
        out.a("   ").a(kq).a("full_dimension_list").a(kq).a(": [");
        int n = 0;
        for (String[] d : r.allDimensions) {
            if (seen.add(d[0] + ":" + d[1])) {
                pair(n++ > 0, d[0], d[1], "");
            }
        }
        out.a("],\n   ").a(kq).a("full_chart_list").a(kq).a(": [");
        seen.clear();
        n = 0;
        for (ChartView c : r.allCharts) {
            if (seen.add(c.id() + ":" + c.name())) {
                pair(n++ > 0, c.id(), c.name(), "");
            }
        }
        out.a("],\n   ").a(kq).a("full_chart_labels").a(kq).a(": [");
        seen.clear();
        n = 0;
        for (ChartView c : r.allCharts) {
            for (Map.Entry<String, String> l : c.info().labels().entrySet()) {
                if (seen.add(l.getKey() + ":" + l.getValue())) {
                    pair(n++ > 0, l.getKey(), l.getValue(), " ");
                }
            }
        }
        out.a("],\n");
    }

    private void pair(boolean comma, String a, String b, String gap) {
        if (comma) {
            out.ch(',');
        }
        out.a("[").jsonString(a).a(",").a(gap).jsonString(b).a("]");
    }

    /** Netdata's query id, also the wrapper's {@code name}: the request as the query target saw it. */
    private String queryId() {
        DataRequest q = r.request;
        StringBuilder sb = new StringBuilder();
        String dims = q.dimensions != null ? q.dimensions : "*";
        if (DataRequest.given(q.context)) {
            sb.append("context://host:").append(r.host.hostname()).append("/contexts:").append(q.context)
                    .append("/instances:").append(DataRequest.given(q.chart) ? q.chart : "*");
        } else {
            // Netdata names the chart by its name, whichever of id or name the request gave
            sb.append("chart://host:").append(r.host.hostname()).append("/instance:")
                    .append(r.chartName != null ? r.chartName : q.chart);
        }
        sb.append("/dimensions:").append(dims)
                .append("/after:").append(q.after)
                .append("/before:").append(q.before)
                .append("/points:").append(q.points)
                .append("/group:").append(q.group.name()).append(q.groupOptions != null ? q.groupOptions : "")
                .append("/options:").append(cut(DataOptions.render(q.options), OPTIONS_ID_MAX));
        if (q.gtime > 1) {
            sb.append("/resampling:").append(q.gtime);
        }
        if ((q.options & DataOptions.SELECTED_TIER) != 0) {
            sb.append("/tier:").append(q.tier);
        }
        return fixedId(cut(sb.toString(), QUERY_ID_MAX));
    }

    /** Netdata's id buffer (MAX_QUERY_TARGET_ID_LENGTH 255, written by snprintfz): 254 bytes and the terminator. */
    static final int QUERY_ID_MAX = 254;
    /** Netdata renders the id's options into a 100-byte buffer: 99 bytes and the terminator. */
    static final int OPTIONS_ID_MAX = 99;

    /** The longest prefix of {@code s} of at most {@code maxBytes} UTF-8 bytes, as Netdata's buffers cut it. */
    static String cut(String s, int maxBytes) {
        int bytes = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            int width = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (bytes + width > maxBytes) {
                return s.substring(0, i);
            }
            bytes += width;
            i += Character.charCount(cp);
        }
        return s;
    }

    /**
     * Netdata's {@code json_fix_string} over the id: a backslash becomes '/', a double quote ''',
     * white space and control characters a space, and every byte outside printable ASCII '_'.
     */
    static String fixedId(String id) {
        StringBuilder sb = new StringBuilder(id.length());
        for (int i = 0; i < id.length(); ) {
            int cp = id.codePointAt(i);
            i += Character.charCount(cp);
            if (cp == '\\') {
                sb.append('/');
            } else if (cp == '"') {
                sb.append('\'');
            } else if (cp < 0x20 || cp == 0x7f || cp == ' ') {
                sb.append(' ');
            } else if (cp > 0x7f) {
                int width = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
                sb.append("_".repeat(width));
            } else {
                sb.append((char) cp);
            }
        }
        return sb.toString();
    }
}
