package io.strata.query.data;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PatternsAndOptionsTest {

    @Test
    void optionsParseAliasesAndRenderCanonically() {
        long o = DataOptions.parse("reversed|absolute-sum,milliseconds jsonwrap|nonsense||match-names");
        assertEquals(DataOptions.REVERSED | DataOptions.ABSOLUTE | DataOptions.MILLISECONDS | DataOptions.JSON_WRAP
                | DataOptions.MATCH_NAMES, o);
        assertEquals("flip,jsonwrap,ms,abs,match_names", DataOptions.render(o));
        assertEquals("", DataOptions.render(0));
    }

    @Test
    void groupingNamesAliasesAndDefaults() {
        assertEquals("incremental_sum", GroupingMethod.parse("incremental-sum").name());
        assertEquals("average", GroupingMethod.parse("mean").name());
        assertEquals("cv", GroupingMethod.parse("rsd").name());
        assertEquals("ses", GroupingMethod.parse("ewma").name());
        assertEquals("average", GroupingMethod.parse("nonsense").name());
        assertEquals(95.0, GroupingMethod.parse("percentile").parameter());
        assertEquals(GroupingMethod.Kind.TRIMMED_MEAN, GroupingMethod.parse("trimmed-mean10").kind());
        assertFalse(GroupingMethod.parse("sum").needsValues());
        assertTrue(GroupingMethod.parse("median").needsValues());
    }

    @Test
    void formatsFallBackToJson() {
        assertEquals(DataFormat.JSON, DataFormat.parse("json2"));
        assertEquals(DataFormat.TSV, DataFormat.parse("tsv-excel"));
        assertEquals(DataFormat.CSV_JSON_ARRAY, DataFormat.parse("csvjsonarray"));
        assertEquals(DataFormat.DATASOURCE, DataFormat.parseGoogle("json"));
    }

    @Test
    void googleParametersCannotInjectScript() {
        assertEquals("alert_1___", DataRequest.safeGoogle("alert(1)//"));
        assertEquals("my.cb-1_x", DataRequest.safeGoogle("my.cb-1_x"));
        assertEquals("__", DataRequest.safeGoogle("\u00e9<"));
    }
}
