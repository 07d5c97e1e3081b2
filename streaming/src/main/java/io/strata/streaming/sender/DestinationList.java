package io.strata.streaming.sender;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Netdata's failover over the parents of a child (§1.4): every (re)connection walks the list from
 * its head, skipping entries postponed into the future; the entry that accepts a TCP connection
 * moves to the end of the list, so that the next reconnection starts with the next one. An entry
 * is postponed after a handshake that failed (for how long depends on the parent's reply).
 *
 * <p>Thread-safe. Time comes from the injected clock (milliseconds), so tests control it.
 */
public final class DestinationList {

    /** An entry and its postponement; {@code postponedUntilMillis} 0 = available. */
    public record Entry(Destination destination, long postponedUntilMillis, String reason) {
    }

    private static final class Slot {
        final Destination destination;
        long postponedUntilMillis;
        String reason = "";

        Slot(Destination destination) {
            this.destination = destination;
        }
    }

    private final List<Slot> slots = new ArrayList<>();
    private final LongSupplier clockMillis;

    /**
     * @param destinations in the order of the setting; must not be empty
     * @param clockMillis  wall clock in milliseconds
     */
    public DestinationList(List<Destination> destinations, LongSupplier clockMillis) {
        Objects.requireNonNull(destinations, "destinations");
        this.clockMillis = Objects.requireNonNull(clockMillis, "clockMillis");
        if (destinations.isEmpty()) {
            throw new IllegalArgumentException("no streaming destination configured");
        }
        for (Destination d : destinations) {
            slots.add(new Slot(Objects.requireNonNull(d, "destination")));
        }
    }

    /** The list of a {@code destination} setting ({@link Destination#parseList}). */
    public static DestinationList parse(String destinationSetting, int defaultPort, LongSupplier clockMillis) {
        return new DestinationList(Destination.parseList(destinationSetting, defaultPort), clockMillis);
    }

    /** The injected clock. */
    public long nowMillis() {
        return clockMillis.getAsLong();
    }

    public synchronized int size() {
        return slots.size();
    }

    /** The first entry, from the head, that is not postponed past {@code nowMillis}. */
    public synchronized Optional<Destination> next(long nowMillis) {
        for (Slot s : slots) {
            if (s.postponedUntilMillis <= nowMillis) {
                return Optional.of(s.destination);
            }
        }
        return Optional.empty();
    }

    /** Every entry not postponed past {@code nowMillis}, in the order a connection attempt tries them. */
    public synchronized List<Destination> available(long nowMillis) {
        List<Destination> out = new ArrayList<>(slots.size());
        for (Slot s : slots) {
            if (s.postponedUntilMillis <= nowMillis) {
                out.add(s.destination);
            }
        }
        return out;
    }

    /**
     * {@code d} accepted a TCP connection: it moves to the end of the list and is no longer
     * postponed (a handshake that then fails postpones it again).
     */
    public synchronized void connected(Destination d) {
        int i = indexOf(d);
        Slot s = slots.remove(i);
        s.postponedUntilMillis = 0;
        s.reason = "";
        slots.add(s);
    }

    /**
     * Skips {@code d} (and any equal entry) for {@code seconds} from now.
     *
     * @throws IllegalArgumentException if {@code d} is not in the list or seconds is negative
     */
    public synchronized void postpone(Destination d, int seconds, String reason) {
        if (seconds < 0) {
            throw new IllegalArgumentException("cannot postpone " + d + " by a negative " + seconds + " s");
        }
        indexOf(d);
        long until = clockMillis.getAsLong() + seconds * 1000L;
        for (Slot s : slots) {
            if (s.destination.equals(d)) {
                s.postponedUntilMillis = until;
                s.reason = reason == null ? "" : reason;
            }
        }
    }

    /** 0 when an entry is available at {@code nowMillis}, otherwise how long until the first one is. */
    public synchronized long millisUntilNextAvailable(long nowMillis) {
        long min = Long.MAX_VALUE;
        for (Slot s : slots) {
            if (s.postponedUntilMillis <= nowMillis) {
                return 0;
            }
            min = Math.min(min, s.postponedUntilMillis - nowMillis);
        }
        return min;
    }

    /** The entries in their current order with their postponements (status pages, tests). */
    public synchronized List<Entry> entries() {
        List<Entry> out = new ArrayList<>(slots.size());
        for (Slot s : slots) {
            out.add(new Entry(s.destination, s.postponedUntilMillis, s.reason));
        }
        return out;
    }

    private int indexOf(Destination d) {
        for (int i = 0; i < slots.size(); i++) {
            if (slots.get(i).destination.equals(d)) {
                return i;
            }
        }
        throw new IllegalArgumentException("destination " + d + " is not in this list");
    }
}
