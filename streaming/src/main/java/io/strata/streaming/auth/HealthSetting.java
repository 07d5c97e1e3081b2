package io.strata.streaming.auth;

/**
 * Health monitoring for a received host, as Netdata's {@code appconfig_get_boolean_ondemand()} reads
 * {@code health enabled by default} / {@code health enabled}: {@code yes|true|on}, {@code no|false|off},
 * {@code auto|on demand} (exact lower case; any other value leaves the inherited setting in place).
 * {@link #AUTO} means "only while the child is connected".
 */
public enum HealthSetting {
    NO, YES, AUTO;

    /** The setting a value names, or {@code null} when Netdata would not recognise it. */
    public static HealthSetting fromConfigValue(String value) {
        if (value == null) {
            return null;
        }
        switch (value) {
            case "yes":
            case "true":
            case "on":
                return YES;
            case "no":
            case "false":
            case "off":
                return NO;
            case "auto":
            case "on demand":
                return AUTO;
            default:
                return null;
        }
    }
}
