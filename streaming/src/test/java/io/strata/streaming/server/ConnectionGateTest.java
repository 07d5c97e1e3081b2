package io.strata.streaming.server;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ConnectionGateTest {

    static final InetAddress A = InetAddress.getLoopbackAddress();

    static InetAddress address(int last) throws Exception {
        return InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) last});
    }

    final List<Integer> evicted = new ArrayList<>();

    ConnectionGate.Ticket admit(ConnectionGate gate, InetAddress from, int id) {
        return gate.admit(from, () -> evicted.add(id));
    }

    @Test
    void atTheHandshakeCapTheOldestStillInItsHandshakeIsEvictedNeverACompletedOne() throws Exception {
        ConnectionGate gate = new ConnectionGate(ServerLimits.defaults().withHandshakes(3, 64));
        List<ConnectionGate.Ticket> t = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            t.add(admit(gate, address(i), i));
        }
        t.get(0).handshakeDone(); // the oldest completed: no longer a candidate
        t.add(admit(gate, address(3), 3)); // 3 in handshake: 1, 2, 3 - no eviction
        assertEquals(List.of(), evicted);
        t.add(admit(gate, address(4), 4));
        assertEquals(List.of(1), evicted);
        assertEquals(ConnectionGate.Refusal.NONE, t.get(4).refusal());
        assertEquals(3, gate.handshaking());
        assertEquals(5, gate.open(), "the evicted one is open until it is closed");
        t.add(admit(gate, address(5), 5));
        assertEquals(List.of(1, 2), evicted);
        assertEquals(2, gate.evictions());
        // the evicted ones close: nothing counted twice
        t.get(1).release();
        t.get(2).release();
        assertEquals(3, gate.handshaking());
        assertEquals(4, gate.open());
        assertEquals(0, gate.open(address(1)));
    }

    @Test
    void anAddressAtItsOwnCapIsRefusedAndEvictsNothing() {
        ConnectionGate gate = new ConnectionGate(ServerLimits.defaults().withHandshakes(2, 1));
        admit(gate, A, 0);
        ConnectionGate.Ticket second = admit(gate, A, 1);
        assertEquals(ConnectionGate.Refusal.HANDSHAKES_PER_ADDRESS, second.refusal());
        assertEquals(List.of(), evicted);
        assertEquals(1, gate.refusing());
        second.release();
        assertEquals(0, gate.refusing());
        assertEquals(1, gate.handshaking());
    }

    @Test
    void aConnectionThatCompletesAfterItsEvictionIsLeftOpen() throws Exception {
        ConnectionGate gate = new ConnectionGate(ServerLimits.defaults().withHandshakes(1, 64));
        ConnectionGate.Ticket first = admit(gate, address(1), 1);
        ConnectionGate.Ticket second = admit(gate, address(2), 2);
        assertEquals(List.of(1), evicted);
        first.handshakeDone();
        assertEquals(true, first.completedAfterEviction());
        assertEquals(false, second.completedAfterEviction());
        assertEquals(1, gate.handshaking(), "the completion of an evicted one is not counted again");
        first.release();
        second.release();
        assertEquals(0, gate.open());
        assertEquals(0, gate.handshaking());
        assertEquals(0, gate.addresses());
    }

    @Test
    void aConnectionThatHasSpokenIsEvictedOnlyWhenNoSilentOneIsLeft() throws Exception {
        ConnectionGate gate = new ConnectionGate(ServerLimits.defaults().withHandshakes(3, 64));
        List<ConnectionGate.Ticket> t = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            t.add(admit(gate, address(i), i));
        }
        // the oldest has sent its request, not yet read whole: a burst of silent ones evicts the others first
        t.get(0).spoke();
        t.add(admit(gate, address(3), 3));
        t.add(admit(gate, address(4), 4));
        assertEquals(List.of(1, 2), evicted);
        t.add(admit(gate, address(5), 5));
        assertEquals(List.of(1, 2, 3), evicted, "the silent ones go first, oldest first");
        // every one in its handshake has spoken: then the one that spoke first
        t.get(4).spoke();
        t.get(5).spoke();
        t.add(admit(gate, address(6), 6));
        assertEquals(List.of(1, 2, 3, 0), evicted);
        t.add(admit(gate, address(7), 7));
        assertEquals(List.of(1, 2, 3, 0, 6), evicted, "the new silent one before those that spoke");
        assertEquals(3, gate.handshaking());
        assertEquals(5, gate.evictions());
        for (ConnectionGate.Ticket x : t) {
            x.release();
        }
        assertEquals(0, gate.handshaking());
        assertEquals(0, gate.open());
        assertEquals(0, gate.addresses());
    }

    @Test
    void aConnectionThatSpeaksAfterItsHandshakeOrItsEvictionChangesNothing() throws Exception {
        ConnectionGate gate = new ConnectionGate(ServerLimits.defaults().withHandshakes(1, 64));
        ConnectionGate.Ticket first = admit(gate, address(1), 1);
        ConnectionGate.Ticket second = admit(gate, address(2), 2);
        assertEquals(List.of(1), evicted);
        first.spoke(); // its bytes arrive before its own loop closes it: it is not counted again
        assertEquals(1, gate.handshaking());
        second.handshakeDone();
        second.spoke();
        assertEquals(0, gate.handshaking());
        ConnectionGate.Ticket third = admit(gate, address(3), 3);
        assertEquals(List.of(1), evicted, "nothing in its handshake but the new one");
        first.release();
        second.release();
        third.release();
        assertEquals(0, gate.open());
        assertEquals(0, gate.handshaking());
    }
}
