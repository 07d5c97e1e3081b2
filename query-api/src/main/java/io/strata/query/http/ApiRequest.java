package io.strata.query.http;

import io.netty.buffer.ByteBufAllocator;
import io.strata.query.ApiContext;
import io.strata.query.catalog.Catalog;
import io.strata.query.catalog.HostView;

/**
 * One request as an endpoint sees it.
 *
 * @param host    the host addressed (the node's own, or the one of {@code /host/<name>/})
 * @param path    the path after the API prefix or the host prefix, decoded
 * @param client  who asks (for Prometheus' per-server state when it sends no {@code server=})
 * @param selfUrl this server as the client reached it ({@code http://} and the Host header), or null
 */
public record ApiRequest(ApiContext context, ApiServices services, Catalog catalog, HostView host, String path,
                         QueryString query, ByteBufAllocator alloc, String client, String selfUrl) {
}
