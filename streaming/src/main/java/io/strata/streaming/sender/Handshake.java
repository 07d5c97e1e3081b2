package io.strata.streaming.sender;

import io.strata.streaming.handshake.HandshakeReplies;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * The two ends of a child's handshake, injected into {@link StreamSender} (the handshake package
 * implements them: the request of §2.1 and the reply rules of §2.2).
 */
public interface Handshake {

    /**
     * A Netdata 1.37.1 child's handshake: the given request, and the parent's reply judged as
     * the C sender judges it (§2.2), with the postponement each refusal earns.
     */
    static Handshake netdata(Function<Destination, byte[]> request) {
        return new Handshake() {
            @Override
            public byte[] request(Destination d) {
                return request.apply(d);
            }

            @Override
            public Outcome parseReply(byte[] reply, int len) {
                HandshakeReplies.Reply r =
                        HandshakeReplies.parseReply(reply, len);
                if (r.kind() == HandshakeReplies.Kind.ACCEPTED) {
                    return Outcome.accepted(r.capabilities());
                }
                return Outcome.refused(r.postponeSeconds(), r.kind() + ": "
                        + new String(reply, 0, Math.min(len, 200), StandardCharsets.UTF_8));
            }
        };
    }

    /** The complete request to send to {@code destination} ({@code STREAM ...\r\n\r\n}), written with one send. */
    byte[] request(Destination destination);

    /**
     * Judges the parent's reply: the bytes of one read of at most 8192 bytes.
     *
     * @param reply the bytes; only the first {@code len} are valid
     */
    Outcome parseReply(byte[] reply, int len);

    /**
     * @param accepted        the parent accepted the stream
     * @param capabilities    the negotiated capabilities (when accepted)
     * @param postponeSeconds how long to skip this destination (when refused)
     * @param reason          what the parent said, for the log and the destination's status
     */
    record Outcome(boolean accepted, long capabilities, int postponeSeconds, String reason) {
        public Outcome {
            if (postponeSeconds < 0) {
                throw new IllegalArgumentException("postpone seconds must not be negative: " + postponeSeconds);
            }
            reason = reason == null ? "" : reason;
        }

        public static Outcome accepted(long capabilities) {
            return new Outcome(true, capabilities, 0, "accepted");
        }

        public static Outcome refused(int postponeSeconds, String reason) {
            return new Outcome(false, 0, postponeSeconds, reason);
        }
    }
}
