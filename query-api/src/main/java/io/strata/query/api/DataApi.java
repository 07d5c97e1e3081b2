package io.strata.query.api;

import io.netty.buffer.ByteBuf;
import io.strata.query.data.DataFormat;
import io.strata.query.data.DataFormatter;
import io.strata.query.data.DataOptions;
import io.strata.query.data.DataQuery;
import io.strata.query.data.DataRequest;
import io.strata.query.data.DataResult;
import io.strata.query.data.QueryBudget;
import io.strata.query.http.ApiRequest;
import io.strata.query.http.ApiResponse;
import io.strata.query.http.ContentTypes;
import io.strata.query.text.Out;

import java.io.IOException;

/** {@code /api/v1/data}: parses the request, runs {@link DataQuery}, prints with {@link DataFormatter}. */
public final class DataApi {

    private DataApi() {
    }

    public static ApiResponse data(ApiRequest req) throws IOException {
        long start = System.nanoTime();
        DataRequest request = DataRequest.parse(req.query());
        QueryBudget budget = QueryBudget.start(req.services().queryLimits(), request.timeoutMillis(), start);
        DataResult result = DataQuery.execute(req.context().engine(), req.host(), request, req.context().nowSeconds(),
                budget);
        Out out = new Out(16 * 1024);
        DataFormatter.write(result, out, req.context().clock().getZone());
        ByteBuf buf = out.toByteBuf();
        DataFormat format = request.format();
        boolean wrapped = (request.options() & DataOptions.JSON_WRAP) != 0;
        String type = wrapped && format != DataFormat.JSONP && format != DataFormat.DATASOURCE
                ? ContentTypes.JSON : format.contentType();
        ApiResponse r = ApiResponse.ok(type, buf, ApiResponse.Caching.NO_CACHE);
        if (request.filename() != null && !request.filename().isEmpty()) {
            r = r.withHeader("Content-Disposition", "attachment; filename=\"" + request.filename() + "\"");
        }
        return r;
    }
}
