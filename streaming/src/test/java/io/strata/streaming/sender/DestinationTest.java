package io.strata.streaming.sender;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DestinationTest {

    @Test
    void parsesEveryPartOfAnEntry() {
        Destination d = Destination.parse("tcp:[fe80::1]%eth0:20000:SSL", 19999);
        assertEquals("fe80::1", d.host());
        assertEquals("eth0", d.iface());
        assertEquals(20000, d.port());
        assertTrue(d.ssl());
        assertEquals("tcp:[fe80::1]%eth0:20000:SSL", d.toString());

        Destination plain = Destination.parse("parent.example.com", 19999);
        assertEquals(new Destination("parent.example.com", "", 19999, false, "parent.example.com"), plain);

        assertEquals(29202, Destination.parse("127.0.0.1:29202", 19999).port());
        assertEquals(19999, Destination.parse("127.0.0.1:", 19999).port());
        assertEquals("::1", Destination.parse("[::1]", 1234).host());
        assertEquals(1234, Destination.parse("[::1]", 1234).port());
        Destination ssl = Destination.parse("10.0.0.1:SSL", 19999);
        assertTrue(ssl.ssl());
        assertEquals(19999, ssl.port());
        assertEquals("eth1", Destination.parse("host%eth1", 19999).iface());
    }

    @Test
    void splitsTheSettingOnWhitespaceAndCommas() {
        List<Destination> l = Destination.parseList("  a:1 b:2,c:3\t[::1]:4 ,, \n", 19999);
        assertEquals(List.of("a", "b", "c", "::1"), l.stream().map(Destination::host).toList());
        assertEquals(List.of(1, 2, 3, 4), l.stream().map(Destination::port).toList());
        assertTrue(Destination.parseList("", 19999).isEmpty());
        assertTrue(Destination.parseList(null, 19999).isEmpty());
    }

    @Test
    void badEntriesSayWhatIsWrong() {
        assertMessage("does not specify a host", ":19999");
        assertMessage("IPv6 address must be written in brackets", "::1");
        assertMessage("IPv6 address needs brackets", "fe80::1");
        assertMessage("without a closing ']'", "[::1:19999");
        assertMessage("not a number (service names are not supported)", "host:http");
        assertMessage("not in 1..65535", "host:70000");
        assertMessage("not in 1..65535", "host:0");
        assertMessage("udp cannot carry a stream", "udp:host");
        assertMessage("unix sockets are not supported", "unix:/run/netdata.sock");
        assertMessage("':SSL' must be the last part", "host:SSL:19999");
        assertMessage("'%' without an interface name", "host%:19999");
        assertMessage("unexpected 'x' after the host", "[::1]x");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Destination.parseList("good:1 bad:port", 19999));
        assertTrue(e.getMessage().contains("'bad:port'"), e.getMessage());
    }

    private static void assertMessage(String expected, String entry) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Destination.parse(entry, 19999));
        assertTrue(e.getMessage().contains(expected), "'" + entry + "': " + e.getMessage());
        assertTrue(e.getMessage().contains(entry), "the message names the entry: " + e.getMessage());
    }

    @Test
    void failoverWalksFromTheHeadAndMovesTheConnectedEntryToTheEnd() {
        AtomicLong clock = new AtomicLong(1_000_000);
        DestinationList list = DestinationList.parse("a:1 b:2 c:3", 19999, clock::get);
        Destination a = list.entries().get(0).destination();
        Destination b = list.entries().get(1).destination();
        Destination c = list.entries().get(2).destination();
        long now = clock.get();
        assertEquals(a, list.next(now).orElseThrow());
        assertEquals(List.of(a, b, c), list.available(now));

        list.connected(a);
        assertEquals(List.of(b, c, a), list.available(now));

        list.postpone(b, 60, "You are not permitted to access this.");
        assertEquals(c, list.next(now).orElseThrow());
        assertEquals(List.of(c, a), list.available(now));
        assertEquals(0, list.millisUntilNextAvailable(now));
        DestinationList.Entry eb = list.entries().get(0);
        assertEquals(now + 60_000, eb.postponedUntilMillis());
        assertEquals("You are not permitted to access this.", eb.reason());

        list.postpone(c, 120, "already streaming");
        list.postpone(a, 30, "no reply");
        assertTrue(list.next(now).isEmpty());
        assertEquals(30_000, list.millisUntilNextAvailable(now));

        clock.addAndGet(30_000);
        assertEquals(a, list.next(clock.get()).orElseThrow());
        clock.addAndGet(30_000);
        assertEquals(List.of(b, a), list.available(clock.get()));

        list.connected(b);
        assertEquals(0, list.entries().get(2).postponedUntilMillis(), "connecting clears the postponement");
        assertEquals(b, list.entries().get(2).destination());
    }

    @Test
    void listMisuseIsRefused() {
        AtomicLong clock = new AtomicLong();
        DestinationList list = DestinationList.parse("a", 19999, clock::get);
        Destination other = Destination.parse("z", 19999);
        assertThrows(IllegalArgumentException.class, () -> list.postpone(other, 1, "x"));
        assertThrows(IllegalArgumentException.class, () -> list.connected(other));
        assertThrows(IllegalArgumentException.class, () -> list.postpone(list.next(0).orElseThrow(), -1, "x"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DestinationList.parse(" ", 19999, clock::get));
        assertEquals("no streaming destination configured", e.getMessage());
        assertFalse(list.next(0).isEmpty());
    }
}
