package dev.tspipe.query.http;

import dev.tspipe.query.error.ApiException;
import io.javalin.http.Context;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;

import java.io.IOException;
import java.util.List;

/**
 * The largest request body a route takes (docs/security.md, "Limits"): {@link #WRITE_BYTES} on the write
 * routes, {@link #QUERY_BYTES} on every other, as the route's group says ({@link RouteGroup#maxBodyBytes}). A body with a {@code Content-Length} over it is refused before a byte of
 * it is read ({@link #requireDeclaredWithin}); a body without one (chunked) is counted as a route reads it, and the
 * read that passes the limit fails with the same 413. Javalin's own limit is one for all routes.
 */
public final class BodyLimit implements Filter {

    /** The largest body of a query route: a form of Prometheus' API, or the device routes' list of keys. */
    public static final int QUERY_BYTES = 1024 * 1024;
    /** The largest body of a write route: a batch of line protocol or of remote-write, compressed or not. */
    public static final int WRITE_BYTES = 10 * 1024 * 1024;

    private final RouteTable routes;

    BodyLimit(RouteTable routes) {
        this.routes = routes;
    }

    /** The limit of the route at {@code path}: its group's ({@link RouteTable#groupOf}, which ignores trailing slashes). */
    long bytesFor(String path) {
        return routes.groupOf(path).maxBodyBytes();
    }

    /** Throws a 413 for a request whose {@code Content-Length} is over the route's limit. */
    void requireDeclaredWithin(Context ctx) {
        if (ctx.contentLength() <= QUERY_BYTES) {
            return;   // within every route's limit: no route to look up
        }
        long limit = bytesFor(ctx.path());
        if (ctx.contentLength() > limit) {
            throw ApiException.tooLarge("the request has a body of " + ctx.contentLength() + " bytes; " + advice(limit));
        }
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (request instanceof HttpServletRequest http && http.getContentLengthLong() < 0) {
            chain.doFilter(new Counted(http, bytesFor(http.getRequestURI())), response);
        } else {
            chain.doFilter(request, response);
        }
    }

    private boolean write(long limit) {
        return limit == WRITE_BYTES;
    }

    private String advice(long limit) {
        return "this route takes at most " + limit + " bytes" + (write(limit) ? " (send smaller batches)"
                : " (send a shorter query)");
    }

    /** A request whose body stream fails once more than {@code limit} bytes were read from it. */
    private final class Counted extends HttpServletRequestWrapper {
        private final long limit;
        private ServletInputStream counted;

        Counted(HttpServletRequest request, long limit) {
            super(request);
            this.limit = limit;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (counted == null) {
                counted = new CountedStream(super.getInputStream(), limit);
            }
            return counted;
        }
    }

    private final class CountedStream extends ServletInputStream {
        private final ServletInputStream in;
        private final long limit;
        private long read;

        CountedStream(ServletInputStream in, long limit) {
            this.in = in;
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = in.read(buffer, offset, length);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        /** An ApiException, not an IOException: the route's handler answers it as any 413 of that route. */
        private void count(int bytes) {
            read += bytes;
            if (read > limit) {
                throw ApiException.tooLarge("the request's body (chunked) is over " + limit + " bytes; " + advice(limit));
            }
        }

        @Override
        public boolean isFinished() {
            return in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            in.setReadListener(listener);
        }
    }
}
