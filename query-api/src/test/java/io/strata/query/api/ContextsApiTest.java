package io.strata.query.api;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ContextsApiTest {

    @Test
    void mergeKeepsCommonPrefixAndSuffixAsNetdata() {
        assertEquals("abc", ContextsApi.merge("abc", "abc"));
        assertEquals("abc[x]def", ContextsApi.merge("abcXYZdef", "abcQdef"));
        assertEquals("abc[x]", ContextsApi.merge("abc", "abcd"));
        assertEquals("[x]", ContextsApi.merge("xyz", "abc"));
        assertEquals("[x]", ContextsApi.merge("[x]", "abc"));
        assertEquals("[x]", ContextsApi.merge("abc", "[x]"));
        // the recorded parent's families: net interfaces and disk mount points
        assertEquals("[x]", ContextsApi.merge(ContextsApi.merge("ifb0", "ifb1"), "eth0"));
        assertEquals("/[x]", ContextsApi.merge(ContextsApi.merge("/dev", "/dev/shm"), "/"));
    }

    @Test
    void optionWordsAsNetdataParsesThem() {
        assertEquals(ContextsApi.ALL, ContextsApi.options("full"));
        assertEquals(ContextsApi.SHOW_INSTANCES | ContextsApi.SHOW_METRICS, ContextsApi.options("charts,dimensions"));
        assertEquals(ContextsApi.SHOW_LABELS | ContextsApi.SHOW_UUIDS | ContextsApi.SHOW_FLAGS,
                ContextsApi.options("labels|uuids flags,bogus"));
        assertEquals(0, ContextsApi.options(""));
    }
}
