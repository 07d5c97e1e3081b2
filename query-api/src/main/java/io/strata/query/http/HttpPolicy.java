package io.strata.query.http;

import io.netty.util.concurrent.EventExecutorGroup;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * How one HTTP connection is served: its deadlines, what it may ask for and where its answers are
 * compressed.
 *
 * @param firstRequestTimeoutSeconds {@code [web] timeout for first request}: a request must be whole within
 *                                   this many seconds of its first byte (the first one: of the connection's
 *                                   protocol being known)
 * @param idleTimeoutSeconds         {@code [web] disconnect idle clients after seconds}: a connection with
 *                                   nothing to read and nothing being answered, or whose answers the client
 *                                   does not take, closes after this long
 * @param access                     what the client may ask for; anything else is answered 403
 * @param redirectToTls              plain text on a {@code ^SSL=force} listener: every request is answered
 *                                   with a 301 to {@code https://}
 * @param gzip                       {@code [web] enable gzip compression}: answers are gzipped for clients
 *                                   that accept it
 * @param gzipExecutor               where answers are gzipped (off the event loops that carry streams); null:
 *                                   on the connection's event loop
 * @param firstRequestWhole          called once, when the connection's first request is whole (the port
 *                                   then stops counting it as a handshake in progress)
 */
public record HttpPolicy(int firstRequestTimeoutSeconds, int idleTimeoutSeconds, Set<HttpAccess> access,
                         boolean redirectToTls, boolean gzip, EventExecutorGroup gzipExecutor,
                         Runnable firstRequestWhole) {

    public static final int DEFAULT_FIRST_REQUEST_TIMEOUT_SECONDS = 10;
    /** Netdata's default of {@code disconnect idle clients after seconds}. */
    public static final int DEFAULT_IDLE_TIMEOUT_SECONDS = 60;

    public HttpPolicy {
        if (firstRequestTimeoutSeconds <= 0 || idleTimeoutSeconds <= 0) {
            throw new IllegalArgumentException("timeouts must be positive");
        }
        Objects.requireNonNull(access, "access");
        access = access.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(access));
        if (firstRequestWhole == null) {
            firstRequestWhole = () -> { };
        }
    }

    public HttpPolicy(int firstRequestTimeoutSeconds, int idleTimeoutSeconds, Set<HttpAccess> access,
                      boolean redirectToTls, boolean gzip, EventExecutorGroup gzipExecutor) {
        this(firstRequestTimeoutSeconds, idleTimeoutSeconds, access, redirectToTls, gzip, gzipExecutor, null);
    }

    /** Everything allowed, the default deadlines, gzip on the event loop. */
    public static HttpPolicy defaults() {
        return new HttpPolicy(DEFAULT_FIRST_REQUEST_TIMEOUT_SECONDS, DEFAULT_IDLE_TIMEOUT_SECONDS, HttpAccess.all(),
                false, true, null);
    }

    public HttpPolicy withTimeouts(int firstRequestSeconds, int idleSeconds) {
        return new HttpPolicy(firstRequestSeconds, idleSeconds, access, redirectToTls, gzip, gzipExecutor,
                firstRequestWhole);
    }
}
