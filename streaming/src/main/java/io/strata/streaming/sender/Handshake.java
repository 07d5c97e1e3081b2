package io.strata.streaming.sender;

/**
 * The two ends of a child's handshake, injected into {@link StreamSender} (the handshake package
 * implements them: the request of §2.1 and the reply rules of §2.2).
 */
public interface Handshake {

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
