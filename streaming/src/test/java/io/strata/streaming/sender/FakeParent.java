package io.strata.streaming.sender;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Test helper: a parent on 127.0.0.1 (plain java.net, one thread per connection) that reads the
 * STREAM request up to the blank line and then behaves as its mode says.
 */
final class FakeParent implements AutoCloseable {

    enum Mode {
        /** Replies, then keeps reading the stream until the child closes. */
        ACCEPT,
        /** Replies with the reply text (an error) and closes. */
        REPLY_AND_CLOSE,
        /** Closes without replying. */
        CLOSE_WITHOUT_REPLY,
        /** Never replies, keeps the connection open. */
        SILENT
    }

    final class Connection {
        final Socket socket;
        final String request;
        private final ByteArrayOutputStream received = new ByteArrayOutputStream();
        private volatile boolean ended;

        Connection(Socket socket, String request) {
            this.socket = socket;
            this.request = request;
        }

        String received() {
            synchronized (received) {
                return received.toString(StandardCharsets.UTF_8);
            }
        }

        /** Waits until the received text contains {@code s}. */
        boolean awaitReceived(String s, long millis) throws InterruptedException {
            long end = System.nanoTime() + millis * 1_000_000;
            while (System.nanoTime() < end) {
                if (received().contains(s)) {
                    return true;
                }
                Thread.sleep(10);
            }
            return received().contains(s);
        }

        /** Waits until the child closed the connection. */
        boolean awaitEnded(long millis) throws InterruptedException {
            long end = System.nanoTime() + millis * 1_000_000;
            while (System.nanoTime() < end && !ended) {
                Thread.sleep(10);
            }
            return ended;
        }

        void send(String text) throws IOException {
            OutputStream out = socket.getOutputStream();
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        void close() throws IOException {
            socket.close();
        }

        private void readUntilEof(InputStream in) {
            byte[] buf = new byte[8192];
            try {
                int n;
                while ((n = in.read(buf)) > 0) {
                    synchronized (received) {
                        received.write(buf, 0, n);
                    }
                }
            } catch (IOException e) {
                // the test closed the socket, or the child reset it
            } finally {
                ended = true;
            }
        }
    }

    private final ServerSocket server;
    private final Thread acceptor;
    private volatile Mode mode;
    private volatile String reply;
    final BlockingQueue<Connection> connections = new LinkedBlockingQueue<>();
    private final List<Connection> all = new CopyOnWriteArrayList<>();
    /** The stream_info questions asked, in order. */
    final BlockingQueue<String> streamInfoRequests = new LinkedBlockingQueue<>();
    /** What a stream_info question gets (the whole HTTP answer); null: the connection is closed unanswered. */
    private volatile byte[] streamInfoAnswer;
    /** A stream_info question is left unanswered with the connection open (until the child closes it). */
    private volatile boolean streamInfoSilent;
    private final List<Socket> streamInfoSockets = new CopyOnWriteArrayList<>();

    FakeParent(Mode mode, String reply) throws IOException {
        this.mode = mode;
        this.reply = reply;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "fake-parent-" + server.getLocalPort());
        this.acceptor.setDaemon(true);
        this.acceptor.start();
    }

    /** How many connections reached the request's end so far. */
    int connectionCount() {
        return all.size();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Answers stream_info questions with {@code httpAnswer} (null: closes without an answer). */
    void answerStreamInfo(byte[] httpAnswer) {
        this.streamInfoAnswer = httpAnswer;
        this.streamInfoSilent = false;
    }

    /** Leaves stream_info questions unanswered, the connection open. */
    void silentOnStreamInfo() {
        this.streamInfoSilent = true;
    }

    /** How many stream_info connections the child has not closed yet. */
    long openStreamInfoConnections() {
        return streamInfoSockets.stream().filter(s -> !s.isClosed()).count();
    }

    void behave(Mode newMode, String newReply) {
        this.mode = newMode;
        this.reply = newReply;
    }

    Connection nextConnection(long millis) throws InterruptedException {
        return connections.poll(millis, TimeUnit.MILLISECONDS);
    }

    /** A port nothing listens on (bound, then released). */
    static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                Thread t = new Thread(() -> serve(s), "fake-parent-conn-" + s.getPort());
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try {
            InputStream in = s.getInputStream();
            ByteArrayOutputStream req = new ByteArrayOutputStream();
            int b;
            while ((b = in.read()) >= 0) {
                req.write(b);
                byte[] r = req.toByteArray();
                int n = r.length;
                if (n >= 4 && r[n - 4] == '\r' && r[n - 3] == '\n' && r[n - 2] == '\r' && r[n - 1] == '\n') {
                    break;
                }
            }
            String text = req.toString(StandardCharsets.UTF_8);
            if (text.startsWith("GET /api/v3/stream_info")) {
                streamInfoRequests.add(text);
                streamInfoSockets.add(s);
                byte[] answer = streamInfoAnswer;
                if (streamInfoSilent) {
                    // until the child closes it
                    while (in.read() >= 0) {
                        // discard
                    }
                } else if (answer != null) {
                    s.getOutputStream().write(answer);
                    s.getOutputStream().flush();
                }
                s.close();
                return;
            }
            Connection c = new Connection(s, text);
            all.add(c);
            connections.add(c);
            Mode m = mode;
            switch (m) {
                case ACCEPT -> {
                    c.send(reply);
                    c.readUntilEof(in);
                }
                case REPLY_AND_CLOSE -> {
                    c.send(reply);
                    s.close();
                }
                case CLOSE_WITHOUT_REPLY -> s.close();
                case SILENT -> c.readUntilEof(in);
            }
        } catch (IOException e) {
            // connection reset by the child
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Connection c : all) {
            c.close();
        }
        for (Socket s : streamInfoSockets) {
            s.close();
        }
    }
}
