package io.strata.query.data;

import io.strata.query.http.ContentTypes;

/** The {@code format=} values of {@code /api/v1/data}; anything else (even {@code json2}) is {@link #JSON}, as in Netdata 1.37. */
public enum DataFormat {
    DATATABLE("datatable", ContentTypes.JSON, false),
    DATASOURCE("datasource", ContentTypes.JAVASCRIPT, false),
    JSON("json", ContentTypes.JSON, false),
    JSONP("jsonp", ContentTypes.JAVASCRIPT, false),
    SSV("ssv", ContentTypes.TEXT_PLAIN, true),
    CSV("csv", ContentTypes.TEXT_PLAIN, true),
    TSV("tsv", ContentTypes.TEXT_PLAIN, true),
    HTML("html", ContentTypes.TEXT_HTML, true),
    ARRAY("array", ContentTypes.JSON, false),
    SSV_COMMA("ssvcomma", ContentTypes.TEXT_PLAIN, true),
    CSV_JSON_ARRAY("csvjsonarray", ContentTypes.JSON, false),
    MARKDOWN("markdown", ContentTypes.TEXT_PLAIN, true);

    private final String wireName;
    private final String contentType;
    private final boolean textResult;

    DataFormat(String wireName, String contentType, boolean textResult) {
        this.wireName = wireName;
        this.contentType = contentType;
        this.textResult = textResult;
    }

    /** The name the wrapper's {@code format} field shows. */
    public String wireName() {
        return wireName;
    }

    /** The name the jsonwrap wrapper gives it: Netdata 1.37.1 knows no name for markdown and csvjsonarray there. */
    public String wrapperName() {
        return this == MARKDOWN || this == CSV_JSON_ARRAY ? "unknown" : wireName;
    }

    public String contentType() {
        return contentType;
    }

    /** True when, inside {@code jsonwrap}, the result is embedded as a JSON string rather than as JSON. */
    public boolean textResult() {
        return textResult;
    }

    public static DataFormat parse(String s) {
        if (s == null) {
            return JSON;
        }
        if (s.equals("tsv-excel")) {
            return TSV;
        }
        for (DataFormat f : values()) {
            if (f.wireName.equals(s)) {
                return f;
            }
        }
        return JSON;
    }

    /** Google's {@code tqx=out:} names: {@code json} means the JavaScript data source. */
    public static DataFormat parseGoogle(String s) {
        return switch (s) {
            case "json" -> DATASOURCE;
            case "html" -> HTML;
            case "csv" -> CSV;
            case "tsv-excel" -> TSV;
            default -> JSON;
        };
    }
}
