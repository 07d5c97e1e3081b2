package io.strata.streaming.sender;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One accepted connection to a parent. {@link #write} commits an atomic block (one message in
 * the channel: never interleaved with another block) and may be called from any thread.
 *
 * <p>The send buffer is bounded as Netdata's ({@code buffer size bytes}, default 10 MiB): it
 * counts the bytes of committed blocks not yet written to the socket. A block that does not fit
 * is dropped and the connection is closed; the sender reconnects and everything is sent again
 * (§8). {@link #halfFull()} tells replication to hold back, as Netdata does above 50 %.
 *
 * <p>Replication answers ({@link #writeAnswer}) are counted apart from the live stream: one answer
 * for a wide chart over a replication step can be larger than a small buffer, and an answer that
 * could never fit would be computed, refused and asked for again on every connection, for ever.
 * Live blocks fit in the buffer beside whatever answers are pending, and answers fit in a buffer of
 * the same size of their own, or go alone when a single one is larger. A connection therefore
 * holds at most {@code buffer size bytes} of live data plus the larger of {@code buffer size
 * bytes} and one answer.
 */
public final class SenderSession {

    private static final Logger log = LoggerFactory.getLogger(SenderSession.class);

    /** A line from the parent, for the connection thread. */
    record CommandLine(byte[] line) {
    }

    /** The end of the connection, for the connection thread. */
    record Disconnected(String reason) {
    }

    private final String hostName;
    private final Channel channel;
    private final Destination destination;
    private final long capabilities;
    private final long bufferSizeBytes;
    private final AtomicLong pending = new AtomicLong();
    /** The part of {@link #pending} that is replication answers. */
    private final AtomicLong answersPending = new AtomicLong();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicBoolean disconnectQueued = new AtomicBoolean();
    /** Parent commands in {@link #events}: written on the event loop, taken on the connection thread. */
    private final AtomicInteger queuedCommands = new AtomicInteger();
    private volatile String closeReason;
    private volatile long lastProgressNanos = System.nanoTime();
    final BlockingQueue<Object> events = new LinkedBlockingQueue<>();

    /** Parent commands queued for the connection thread at most (plus those of the read that reached it). */
    public static final int MAX_QUEUED_COMMANDS = 1024;
    /** Queued parent commands below which a socket no longer read is read again. */
    public static final int RESUME_QUEUED_COMMANDS = 256;

    SenderSession(String hostName, Channel channel, Destination destination, long capabilities, long bufferSizeBytes) {
        this.hostName = Objects.requireNonNull(hostName, "hostName");
        this.channel = Objects.requireNonNull(channel, "channel");
        this.destination = Objects.requireNonNull(destination, "destination");
        if (bufferSizeBytes <= 0) {
            throw new IllegalArgumentException("send buffer size must be positive, got " + bufferSizeBytes);
        }
        this.capabilities = capabilities;
        this.bufferSizeBytes = bufferSizeBytes;
    }

    /**
     * A session over a channel connected and handshaken elsewhere than in {@link StreamSender} (an
     * embedding, or a test on an {@code EmbeddedChannel}): blocks go to the channel as they are here.
     */
    public static SenderSession over(String hostName, Channel channel, Destination destination, long capabilities,
                                     long bufferSizeBytes) {
        return new SenderSession(hostName, channel, destination, capabilities, bufferSizeBytes);
    }

    /**
     * Commits one block; takes ownership of {@code block} (it is released whatever happens).
     *
     * @return false when the block was not queued: the session is closed, or the block overflowed
     *         the send buffer (which closes the session)
     */
    public boolean write(ByteBuf block) {
        return commit(block, false);
    }

    /**
     * Commits a replication answer (see the class comment for how it is counted); takes ownership
     * of {@code block}.
     *
     * @return false when the answer was not queued: the session is closed, or answers already
     *         pending leave no room for it (which closes the session)
     */
    public boolean writeAnswer(ByteBuf block) {
        return commit(block, true);
    }

    private boolean commit(ByteBuf block, boolean answer) {
        int size = block.readableBytes();
        if (closed.get()) {
            block.release();
            return false;
        }
        if (size == 0) {
            block.release();
            return true;
        }
        long answersBefore = answer ? answersPending.getAndAdd(size) : answersPending.get();
        long before = pending.getAndAdd(size);
        boolean fits = answer
                ? answersBefore == 0 || answersBefore + size <= bufferSizeBytes
                : before - answersBefore + size <= bufferSizeBytes;
        if (!fits) {
            pending.addAndGet(-size);
            if (answer) {
                answersPending.addAndGet(-size);
            }
            block.release();
            log.error("STREAM {} [send to {}]: buffer full ({} of {} bytes pending) for a{} block of {} bytes, after"
                            + " sending {} bytes on this connection; restarting the connection",
                    hostName, destination, before, bufferSizeBytes, answer ? " replication answer" : "", size,
                    sent.get());
            close("send buffer overflow (" + bufferSizeBytes + " bytes)");
            return false;
        }
        if (before == 0) {
            lastProgressNanos = System.nanoTime();
        }
        channel.writeAndFlush(block).addListener(f -> {
            pending.addAndGet(-size);
            if (answer) {
                answersPending.addAndGet(-size);
            }
            lastProgressNanos = System.nanoTime();
            if (f.isSuccess()) {
                sent.addAndGet(size);
                SenderStats.PROCESS.count(size);
            } else if (!closed.get()) {
                close("failed to send: " + f.cause());
            }
        });
        return true;
    }

    /** More than half of the send buffer is pending: hold back replication answers. */
    public boolean halfFull() {
        return pending.get() * 2 > bufferSizeBytes;
    }

    /** Bytes committed and not yet written to the socket. */
    public long pendingBytes() {
        return pending.get();
    }

    /**
     * On the event loop: a line from the parent, for the connection thread. At
     * {@link #MAX_QUEUED_COMMANDS} queued the socket is no longer read (the parent's writes then
     * wait in the kernel's buffers and its own), until the connection thread has worked the queue
     * down to {@link #RESUME_QUEUED_COMMANDS}.
     */
    void commandReceived(byte[] line) {
        events.add(new CommandLine(line));
        if (queuedCommands.incrementAndGet() >= MAX_QUEUED_COMMANDS) {
            updateReading();
        }
    }

    /** On the connection thread: the next command or the end of the connection, waiting for one. */
    Object nextEvent() throws InterruptedException {
        Object ev = events.take();
        // crossing the resume mark (by one, so never jumped over) hands the decision to the event loop,
        // which alone turns reading off: a decision taken here could race with one taken there
        if (ev instanceof CommandLine && queuedCommands.decrementAndGet() == RESUME_QUEUED_COMMANDS) {
            try {
                channel.eventLoop().execute(this::updateReading);
            } catch (RejectedExecutionException e) {
                // the event loop is shutting down: the connection goes with it, nothing to read
            }
        }
        return ev;
    }

    /** On the event loop, once the stream's pipeline is in place: reads unless the commands already fill the queue. */
    void startReading() {
        channel.config().setAutoRead(queuedCommands.get() < MAX_QUEUED_COMMANDS);
    }

    /** On the event loop: reading stops at the high mark and resumes at the low one. */
    private void updateReading() {
        int queued = queuedCommands.get();
        boolean reading = channel.config().isAutoRead();
        if (reading && queued >= MAX_QUEUED_COMMANDS) {
            channel.config().setAutoRead(false);
        } else if (!reading && queued <= RESUME_QUEUED_COMMANDS) {
            channel.config().setAutoRead(true);
        }
    }

    /** Parent commands and events waiting for the connection thread. */
    public int queuedEvents() {
        return events.size();
    }

    public long bufferSizeBytes() {
        return bufferSizeBytes;
    }

    /** Bytes written to the socket on this connection (before compression). */
    public long sentBytes() {
        return sent.get();
    }

    public long capabilities() {
        return capabilities;
    }

    public Destination destination() {
        return destination;
    }

    public boolean isOpen() {
        return !closed.get() && channel.isActive();
    }

    /** Closes the connection; the sender reconnects. The first reason given is the one reported. */
    public void close(String reason) {
        if (closed.compareAndSet(false, true)) {
            closeReason = reason;
            channel.close();
        }
    }

    /** Why the session closed, null while open. */
    public String closeReason() {
        return closeReason;
    }

    Channel channel() {
        return channel;
    }

    /** The channel went inactive: tell the connection thread once. */
    void disconnected(String defaultReason) {
        closed.set(true);
        if (disconnectQueued.compareAndSet(false, true)) {
            String r = closeReason;
            events.add(new Disconnected(r != null ? r : defaultReason));
        }
    }

    /** Closes the session when bytes have waited longer than {@code timeoutNanos} without progress. */
    void closeIfStalled(long nowNanos, long timeoutNanos) {
        if (pending.get() > 0 && nowNanos - lastProgressNanos > timeoutNanos) {
            log.warn("STREAM {} [send to {}]: could not send metrics for {} seconds - closing connection"
                    + " - we have sent {} bytes on this connection", hostName, destination, timeoutNanos / 1_000_000_000L,
                    sent.get());
            close("could not send data for " + timeoutNanos / 1_000_000_000L + " seconds");
        }
    }
}
