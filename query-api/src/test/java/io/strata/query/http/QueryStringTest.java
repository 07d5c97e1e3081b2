package io.strata.query.http;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QueryStringTest {

    @Test
    void parametersInOrderDecodedLastOneWins() {
        QueryString q = QueryString.parse("chart=system.cpu&options=ms%7Cflip&after=-60&after=-120&x=a+b&&=v&e=");
        assertEquals("system.cpu", q.get("chart"));
        assertEquals("ms|flip", q.get("options"));
        assertEquals("-120", q.get("after"));
        assertEquals("a b", q.get("x"));
        assertNull(q.get("e"), "an empty value is no value, as in Netdata");
        assertTrue(q.flags().contains("e"));
        assertEquals(5, q.size());
        assertEquals("after", q.name(2));
    }

    @Test
    void flagsWithoutValues() {
        QueryString q = QueryString.parse("active&all=");
        assertEquals(0, q.size());
        assertEquals(2, q.flags().size());
    }

    @Test
    void malformedEscapesStayAsWritten() {
        assertEquals("%zz%4", QueryString.decode("%zz%4"));
        assertEquals("100%", QueryString.decode("100%"));
        assertEquals("\u00e9", QueryString.decode("%C3%A9"));
        assertEquals("\u4e2d", QueryString.decode("\u4e2d"));
        assertEquals("tqx=reqId:7;out:json", QueryString.parse("a=tqx%3DreqId:7;out:json").get("a"));
    }

    @Test
    void pathDecodingKeepsPlus() {
        assertEquals("/a+b/c d", ApiRouter.decodePath("/a+b/c%20d"));
    }
}
