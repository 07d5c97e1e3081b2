package io.strata.it.netdata;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay on 127.0.0.1 between a child and its parent, so that a test can cut the link:
 * {@link #cut(Duration)} closes every relayed connection at once (both ends see it end) and holds
 * the next connections for a while before relaying them, so that the child is without its parent
 * for at least that long. The held connections are accepted (the child's connect succeeds, its
 * question waits for an answer): keep the hold below the child's timeouts (a 2.9.0 child waits
 * 5 s for a {@code stream_info} answer, and postpones a parent that refuses connections 30 to
 * 60 s). Nothing is changed in the bytes. Daemon threads, one pair per connection;
 * {@link #close()} ends them all.
 */
public final class LinkRelay implements AutoCloseable {

    private final ServerSocket server;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private final Thread acceptor;
    private volatile long holdUntilNanos;

    public LinkRelay(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "link-relay-" + server.getLocalPort());
        this.acceptor.setDaemon(true);
        this.acceptor.start();
    }

    /** The port the child connects to. */
    public int port() {
        return server.getLocalPort();
    }

    /** Connections relayed so far (stream_info questions included). */
    public int accepted() {
        return accepted.get();
    }

    /** Closes every relayed connection now; new ones are relayed once {@code hold} has passed. */
    public void cut(Duration hold) throws IOException {
        holdUntilNanos = System.nanoTime() + hold.toNanos();
        closeAll();
    }

    private void closeAll() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        sockets.clear();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            Socket child;
            try {
                child = server.accept();
            } catch (IOException closed) {
                return;
            }
            accepted.incrementAndGet();
            sockets.add(child);
            long wait;
            while ((wait = holdUntilNanos - System.nanoTime()) > 0 && !server.isClosed()) {
                try {
                    Thread.sleep(Math.min(100, wait / 1_000_000 + 1));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    closeQuietly(child);
                    return;
                }
            }
            Socket parent = new Socket();
            try {
                parent.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5000);
            } catch (IOException down) {
                closeQuietly(child);
                closeQuietly(parent);
                continue;
            }
            sockets.add(parent);
            pump(child, parent);
            pump(parent, child);
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[65536];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buf)) > 0) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException ended) {
                // cut, or one side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "link-relay-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        closeAll();
        try {
            acceptor.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
