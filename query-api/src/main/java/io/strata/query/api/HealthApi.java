package io.strata.query.api;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.strata.query.http.ApiError;
import io.strata.query.http.ApiRequest;
import io.strata.query.http.ApiResponse;
import io.strata.query.http.ContentTypes;
import io.strata.query.text.Out;

/**
 * The endpoints the dashboard calls while loading that Strata has no engine behind yet: alarms
 * (no health engine: nothing is ever raised) and the registry's {@code hello} (no registry: the
 * answer points the browser back at this server, so it makes no call elsewhere). They answer
 * with Netdata's shapes; without them the dashboard stays on its splash screen.
 */
public final class HealthApi {

    private HealthApi() {
    }

    public static ApiResponse alarms(ApiRequest req) {
        Out o = new Out(256);
        o.a("{\n\t\"hostname\": ").jsonString(req.host().hostname())
                .a(",\n\t\"latest_alarm_log_unique_id\": 0,\n\t\"status\": true,\n\t\"now\": ")
                .integer(req.context().nowSeconds()).a(",\n\t\"alarms\": {\n\n\t}\n}");
        return ApiResponse.ok(ContentTypes.JSON, o.toByteBuf(), ApiResponse.Caching.NO_CACHE);
    }

    public static ApiResponse alarmsValues(ApiRequest req) {
        Out o = new Out(128);
        o.a("{\n\t\"hostname\": ").jsonString(req.host().hostname()).a(",\n\t\"alarms\": {\n\n\t}\n}");
        return ApiResponse.ok(ContentTypes.JSON, o.toByteBuf(), ApiResponse.Caching.NO_CACHE);
    }

    public static ApiResponse alarmLog(ApiRequest req) {
        return ApiResponse.ok(ContentTypes.JSON, new Out(16).a("[\n]").toByteBuf(), ApiResponse.Caching.NO_CACHE);
    }

    public static ApiResponse alarmCount(ApiRequest req) {
        return ApiResponse.ok(ContentTypes.JSON, new Out(16).a("[0]").toByteBuf(), ApiResponse.Caching.NO_CACHE);
    }

    public static ApiResponse registry(ApiRequest req) {
        String action = req.query().get("action");
        if ("access".equals(action) || "delete".equals(action) || "search".equals(action)
                || "switch".equals(action)) {
            // Netdata with its registry disabled: 200 and status "disabled" (the dashboard calls
            // access on the registry that hello named, this server, and then carries on)
            Out o = new Out(256);
            o.a("{\n\t\"action\": \"").a(action).a("\",\n\t\"status\": \"disabled\",\n\t\"hostname\": ")
                    .jsonString(req.catalog().local().hostname())
                    .a(",\n\t\"machine_guid\": \"").a(req.catalog().local().guid().toString())
                    .a("\",\n\t\"registry\": ").jsonString(req.selfUrl() != null ? req.selfUrl() : "")
                    .a("\n}\n");
            return ApiResponse.ok(ContentTypes.JSON, o.toByteBuf(), ApiResponse.Caching.NO_CACHE);
        }
        if (!"hello".equals(action)) {
            throw new ApiError(HttpResponseStatus.BAD_REQUEST, "Invalid registry request - this registry is disabled.");
        }
        Out o = new Out(256);
        o.a("{\n\t\"action\": \"hello\",\n\t\"status\": \"ok\",\n\t\"hostname\": ")
                .jsonString(req.catalog().local().hostname())
                .a(",\n\t\"machine_guid\": \"").a(req.catalog().local().guid().toString())
                .a("\",\n\t\"registry\": ").jsonString(req.selfUrl() != null ? req.selfUrl() : "")
                .a(",\n\t\"cloud_base_url\": \"https://app.netdata.cloud\",\n")
                .a("\t\"anonymous_statistics\": false\n}");
        return ApiResponse.ok(ContentTypes.JSON, o.toByteBuf(), ApiResponse.Caching.NO_CACHE);
    }

    public static ApiResponse aclk(ApiRequest req) {
        return ApiResponse.ok(ContentTypes.JSON, new Out(32).a("{\"aclk-available\":false}").toByteBuf(),
                ApiResponse.Caching.NO_CACHE);
    }
}
