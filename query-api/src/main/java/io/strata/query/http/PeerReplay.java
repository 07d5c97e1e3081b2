package io.strata.query.http;

import io.netty.buffer.ByteBufAllocator;

import java.io.IOException;

/**
 * {@code GET /host/<machine GUID>/api/v1/replay_chart?chart=<id>&after=<s>&before=<s>}: a peer parent
 * reading back a past range of one host's chart as a replication answer's text (Strata to Strata
 * only; docs/format/peer-replay.md). The query API only routes it, behind the port's {@code streaming}
 * permission ({@link HttpAccess#STREAMING}); the node answers it (its API keys decide, and the answer
 * is the replication sender's text, a module the query API does not depend on). Runs on the API's
 * executor, never on an event loop (it reads the engine).
 */
public interface PeerReplay {

    /** The path, after its {@code /host/<guid>} prefix. */
    String PATH = "/api/v1/replay_chart";

    /** A query API without a node behind it (a child, a test): Netdata's text for a command it does not have. */
    PeerReplay NONE = (host, query, authorization, client, alloc) -> {
        throw ApiError.notFound("Unsupported v1 API command: replay_chart");
    };

    /**
     * @param host          the {@code /host/<host>} part of the path, or null when the path has none
     * @param authorization the request's {@code Authorization} header, or null
     * @param client        the client's address
     * @throws ApiError for an answer other than 200 (status and text)
     */
    ApiResponse answer(String host, QueryString query, String authorization, String client, ByteBufAllocator alloc)
            throws IOException;
}
