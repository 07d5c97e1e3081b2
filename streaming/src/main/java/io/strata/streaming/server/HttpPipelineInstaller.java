package io.strata.streaming.server;

import io.netty.channel.ChannelPipeline;

/**
 * Builds the HTTP side of the node's one port. The streaming module knows nothing of HTTP: the
 * query API hands this in, and it is called for every connection that is not a {@code STREAM}.
 */
@FunctionalInterface
public interface HttpPipelineInstaller {
    /** Adds the HTTP handlers at the end of {@code pipeline}. */
    void install(ChannelPipeline pipeline);
}
