package io.strata.exporting.config;

/** A value of {@code exporting.conf} that cannot be used: the start stops with this message. */
public final class ExportingConfigException extends Exception {
    public ExportingConfigException(String message) {
        super(message);
    }
}
