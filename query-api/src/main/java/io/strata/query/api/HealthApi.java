package io.strata.query.api;

import io.netty.buffer.ByteBuf;
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
        ByteBuf buf = req.alloc().buffer(256);
        new Out(buf).a("{\n\t\"hostname\": ").jsonString(req.host().hostname())
                .a(",\n\t\"latest_alarm_log_unique_id\": 0,\n\t\"status\": true,\n\t\"now\": ")
                .integer(req.context().nowSeconds()).a(",\n\t\"alarms\": {\n\n\t}\n}");
        return ApiResponse.ok(ContentTypes.JSON, buf, ApiResponse.Caching.NO_CACHE);
    }

    public static ApiResponse alarmsValues(ApiRequest req) {
        ByteBuf buf = req.alloc().buffer(128);
        new Out(buf).a("{\n\t\"hostname\": ").jsonString(req.host().hostname()).a(",\n\t\"alarms\": {\n\n\t}\n}");
        return ApiResponse.ok(ContentTypes.JSON, buf, ApiResponse.Caching.NO_CACHE);
    }

    public static ApiResponse alarmLog(ApiRequest req) {
        ByteBuf buf = req.alloc().buffer(8);
        new Out(buf).a("[\n]");
        return ApiResponse.ok(ContentTypes.JSON, buf, ApiResponse.Caching.NO_CACHE);
    }

    public static ApiResponse alarmCount(ApiRequest req) {
        ByteBuf buf = req.alloc().buffer(8);
        new Out(buf).a("[0]");
        return ApiResponse.ok(ContentTypes.JSON, buf, ApiResponse.Caching.NO_CACHE);
    }

    public static ApiResponse registry(ApiRequest req) {
        String action = req.query().get("action");
        if (!"hello".equals(action)) {
            // Netdata answers registry actions only with a registry enabled; this server has none
            throw new ApiError(HttpResponseStatus.BAD_REQUEST, "Invalid registry request - this registry is disabled.");
        }
        ByteBuf buf = req.alloc().buffer(256);
        new Out(buf).a("{\n\t\"action\": \"hello\",\n\t\"status\": \"ok\",\n\t\"hostname\": ")
                .jsonString(req.catalog().local().hostname())
                .a(",\n\t\"machine_guid\": \"").a(req.catalog().local().guid().toString())
                .a("\",\n\t\"registry\": ").jsonString(req.selfUrl() != null ? req.selfUrl() : "")
                .a(",\n\t\"cloud_base_url\": \"https://app.netdata.cloud\",\n")
                .a("\t\"anonymous_statistics\": false\n}");
        return ApiResponse.ok(ContentTypes.JSON, buf, ApiResponse.Caching.NO_CACHE);
    }

    public static ApiResponse aclk(ApiRequest req) {
        ByteBuf buf = req.alloc().buffer(32);
        new Out(buf).a("{\"aclk-available\":false}");
        return ApiResponse.ok(ContentTypes.JSON, buf, ApiResponse.Caching.NO_CACHE);
    }
}
