package io.strata.streaming.receiver;

import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Whether a host's direct stream is handed over to this parent's peers because the host cannot
 * send seconds this parent lacks and a peer may hold them (docs/replication.md, "A parent refilled
 * from its peers").
 *
 * <p>The engine stores a metric's points in time order only (a point at or before its last one is
 * refused), so a hole behind a point already stored can never be filled. When a host that streams
 * directly to this parent cannot send part of what this parent lacks (it lost those seconds: a
 * SIGKILL loses its hot pages), the only way to get them from a peer is to store nothing after the
 * hole, close the stream and let the host move to its next parent: that parent forwards the host
 * here, and this parent asks it for everything from the hole on, in time order. The host's next
 * direct stream is refused once ("already streaming", which every sender knows), so that it moves on.
 *
 * <p>What the host cannot send shows in two places: its retention starts after this parent's newest
 * second ({@code CHART_DEFINITION_END}), or its replay answer skips slots ({@code RBEGIN}, or a
 * {@code REND} that starts streaming well before its window's end). Whether a peer may hold it:
 * <ul>
 *   <li>when this parent had a stream of the host that caught up (every chart live) since it
 *       started: the hole must start more than {@link #SLACK_SECONDS} after that stream ended (else
 *       it is the host's own downtime, which no peer holds either);</li>
 *   <li>otherwise (this parent was down, or is a replaced machine) it asks its peers for the newest
 *       second they hold of the host ({@link PeerLookup}) before it asks the host anything, holding
 *       its {@code REPLAY_CHART}s back meanwhile (bounded by {@link #LOOKUP_TIMEOUT_MILLIS}); the hole
 *       must start more than {@link #SLACK_SECONDS} before that second, or a peer did not answer
 *       (in time): a peer stopped, partitioned or too slow may hold the hole, and once anything after
 *       the hole is stored here no copy of it could be stored any more, so the host is handed over
 *       rather than the hole kept. The cost when that peer did not hold it after all is one move of
 *       the host to its next parent (at most once in {@link #MIN_INTERVAL_MILLIS}).</li>
 * </ul>
 * Only the host's own stream ({@code hops} 1) of a parent that forwards it to peers is handed over,
 * at most once per host in {@link #MIN_INTERVAL_MILLIS}. Event loop only, except the lookup's answer,
 * which comes back through the event loop.
 */
public final class PeerHandOver {

    private static final Logger LOG = LoggerFactory.getLogger(PeerHandOver.class);

    /** A hole this close to what this parent or its peers last held is nobody's to fill. */
    public static final long SLACK_SECONDS = 5;
    /** How long the host's next direct stream is refused after a hand-over. */
    public static final long REFUSE_DIRECT_MILLIS = 60_000;
    /** At most one hand-over of a host in this time (bounded work, never a loop). */
    public static final long MIN_INTERVAL_MILLIS = 600_000;
    /** A replay answer that skips fewer slots than this is no hole (a child's last second, alignment). */
    public static final int MIN_MISSING_SLOTS = 2;
    /** The longest the {@code REPLAY_CHART}s wait for the peers' answer. */
    public static final long LOOKUP_TIMEOUT_MILLIS = 5_000;

    /** Never hands over (a forwarded stream, a parent without peers). */
    public static final PeerHandOver NEVER = new PeerHandOver(null, null, false, null);

    private final ReceiverRegistry registry;
    private final String machineGuid;
    private final boolean eligible;
    private final String who;
    /** The peers' newest second of the host once asked (-1: none holds it); {@link #NOT_ASKED} before. */
    private long peersNewest = NOT_ASKED;
    private static final long NOT_ASKED = Long.MIN_VALUE;
    /** Whether every peer asked answered (in time); meaningful once {@link #peersNewest} is set. */
    private boolean everyPeerAnswered;
    /** While the peers are asked: the commands held back, and the oldest second the host lacks. */
    private List<String> heldBack;
    private long lackedFrom = Long.MAX_VALUE;
    /** The same, of the charts this parent holds something of. */
    private long lackedAfterHeldFrom = Long.MAX_VALUE;
    private ParentCommands out;
    private Channel channel;
    private boolean handedOver;

    /**
     * @param hops     the stream's {@code hops}: only the host's own stream (1) is handed over
     * @param hasPeers this parent forwards the host to other parents
     */
    public static PeerHandOver forStream(ReceiverRegistry registry, String machineGuid, int hops, boolean hasPeers,
                                         String who) {
        return hops == 1 && hasPeers ? new PeerHandOver(registry, machineGuid, true, who) : NEVER;
    }

    private PeerHandOver(ReceiverRegistry registry, String machineGuid, boolean eligible, String who) {
        this.registry = registry;
        this.machineGuid = machineGuid;
        this.eligible = eligible;
        this.who = who;
    }

    public boolean eligible() {
        return eligible;
    }

    /**
     * The stream's commands are held back while the peers are asked, or the stream is being handed
     * over: no hole is asked of it ({@link StreamHoles}).
     */
    boolean holdsOrHandsOver() {
        return heldBack != null || handedOver;
    }

    /**
     * The commands of the stream: sent at once, or, when this parent has no caught-up stream of the
     * host since it started, held back until the peers said what they hold (or the timeout).
     */
    ParentCommands commands(ParentCommands direct, Channel ch, PeerLookup lookup, String destinations) {
        if (!eligible || registry.caughtUpEndSecond(machineGuid) >= 0 || recentlyHandedOver()) {
            return direct;
        }
        this.out = direct;
        this.channel = ch;
        this.heldBack = new ArrayList<>();
        lookup.newestSecond(destinations, machineGuid).whenComplete((answer, e) ->
                ch.eventLoop().execute(() -> peersAnswered(e == null && answer != null
                        ? answer : PeerLookup.Answer.NO_ANSWER)));
        ch.eventLoop().schedule(() -> peersAnswered(PeerLookup.Answer.NO_ANSWER), LOOKUP_TIMEOUT_MILLIS,
                TimeUnit.MILLISECONDS);
        return new ParentCommands() {
            @Override
            public void send(String line) {
                if (heldBack != null) {
                    heldBack.add(line);
                } else {
                    direct.send(line);
                }
            }

            @Override
            public boolean writable() {
                return direct.writable();
            }
        };
    }

    /** The peers' answer (or the timeout's "no answer"), on the event loop; the first one counts. */
    void peersAnswered(PeerLookup.Answer answer) {
        if (heldBack == null || handedOver) {
            return;
        }
        peersNewest = answer.newest();
        everyPeerAnswered = answer.everyPeerAnswered();
        List<String> lines = heldBack;
        heldBack = null;
        long from = lackedFrom != Long.MAX_VALUE && decide(lackedFrom, false) ? lackedFrom
                : lackedAfterHeldFrom != Long.MAX_VALUE && decide(lackedAfterHeldFrom, true) ? lackedAfterHeldFrom
                : Long.MAX_VALUE;
        if (from != Long.MAX_VALUE) {
            LOG.info("{}: its retention starts after the newest second held here ({}), and {}: handing it over to"
                    + " the peers", who, from - 1, whyAPeerMayHold(from));
            handOver();
            return;
        }
        for (String l : lines) {
            out.send(l);
        }
    }

    /** Handing over when the lookup decided it: the channel closes, nothing more is stored. */
    private void handOver() {
        handedOver = true;
        registry.handOver(machineGuid, REFUSE_DIRECT_MILLIS);
        Channel ch = channel;
        if (ch != null) {
            ch.close();
        }
    }

    /**
     * {@code CHART_DEFINITION_END}: the host's retention starts at {@code childFirst}, after this
     * parent's newest second {@code parentLast} of the chart (0: none): the seconds between are
     * none of the host's to send. True when the stream must end now (the peers were asked already).
     */
    boolean retentionStartsAfter(long parentLast, long childFirst) {
        if (!eligible || childFirst <= parentLast + SLACK_SECONDS) {
            return false;
        }
        long from = parentLast + 1;
        if (heldBack != null) {
            lackedFrom = Math.min(lackedFrom, from);
            if (parentLast > 0) {
                lackedAfterHeldFrom = Math.min(lackedAfterHeldFrom, from);
            }
            return false;
        }
        return handOverFor(from, childFirst, parentLast > 0);
    }

    /**
     * The host's replay answer skips the seconds {@code [holeFrom, holeTo]} of a chart, none of
     * them stored here. True when the stream must end before anything after the hole is stored
     * (and then the host's next direct stream is refused once).
     *
     * @param chartHeldHere this parent holds some second of the chart
     */
    public boolean holeInAnswer(long holeFrom, long holeTo, boolean chartHeldHere) {
        return handOverFor(holeFrom, holeTo, chartHeldHere);
    }

    private boolean handOverFor(long holeFrom, long holeTo, boolean afterAHeldSecond) {
        if (!eligible || holeTo < holeFrom || handedOver) {
            return false;
        }
        if (!decide(holeFrom, afterAHeldSecond)) {
            return false;
        }
        if (peersNewest != NOT_ASKED) {
            LOG.info("{}: it lacks {}..{} and {}: handing it over to the peers", who, holeFrom, holeTo,
                    whyAPeerMayHold(holeFrom));
        }
        handedOver = true;
        registry.handOver(machineGuid, REFUSE_DIRECT_MILLIS);
        return true;
    }

    /**
     * @param afterAHeldSecond this parent holds some second of the chart: else a peer that did not
     *                         answer is no reason to move a host this parent may never have had (a new
     *                         host, a new chart, a replaced parent asking a host that restarted)
     */
    private boolean decide(long holeFrom, boolean afterAHeldSecond) {
        if (recentlyHandedOver()) {
            return false;
        }
        if (peersNewest != NOT_ASKED) {
            // a peer that did not answer may hold the hole: storing past it here would keep it for good
            return peersNewest > holeFrom + SLACK_SECONDS || !everyPeerAnswered && afterAHeldSecond;
        }
        long caughtUpEnd = registry.caughtUpEndSecond(machineGuid);
        return caughtUpEnd >= 0 && holeFrom > caughtUpEnd + SLACK_SECONDS;
    }

    private String whyAPeerMayHold(long holeFrom) {
        return peersNewest > holeFrom + SLACK_SECONDS ? "a peer holds the host up to " + peersNewest
                : "a peer did not answer (the others hold the host up to " + peersNewest + ") and may hold it";
    }

    private boolean recentlyHandedOver() {
        long last = registry.handedOverMillis(machineGuid);
        return last >= 0 && registry.wallMillis() - last < MIN_INTERVAL_MILLIS;
    }
}
