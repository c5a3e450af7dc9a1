package dev.tspipe.bench.e2e;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One persistent HTTP/1.1 connection that sends GET requests and reads their answers, blocking.
 * The query load uses it instead of {@code java.net.http.HttpClient}, whose asynchronous machinery
 * (selector thread, futures, executor hand-offs per request) cost so much CPU on 2 cores that the
 * client, not the server, set the figures: p50 ~4 ms at 200 req/s where {@code wrk -c1} measured
 * 0.12 ms against the same endpoint. A blocking socket costs a write and a read or two per request.
 *
 * <p>It understands what the query API (Jetty 12) answers: a body framed by
 * {@code Content-Length} or {@code Transfer-Encoding: chunked}, or one ending with the connection;
 * it reconnects after {@code Connection: close}, an end of stream or a failure. Not thread-safe:
 * one worker owns it.
 */
final class KeepAliveConnection implements Closeable {

    static final int CONNECT_TIMEOUT_MS = 5_000;
    /** Per read, so a server that stops answering fails the request instead of the whole step. */
    static final int READ_TIMEOUT_MS = 10_000;
    /** Longer lines are not an answer of the query API; the limit keeps a broken peer from filling the heap. */
    private static final int MAX_LINE = 64 * 1024;

    /** Where a request goes; each worker keeps one connection per endpoint. */
    record Endpoint(String host, int port) {
    }

    /** A GET request for one URI, built once per step so that sending it allocates nothing. */
    record Get(Endpoint endpoint, byte[] bytes) {

        static Get of(URI uri) {
            if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
                throw new IllegalArgumentException("not an http URI with a host: " + uri);
            }
            Endpoint endpoint = new Endpoint(uri.getHost(), uri.getPort() == -1 ? 80 : uri.getPort());
            String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
            String target = uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
            String request = "GET " + target + " HTTP/1.1\r\n"
                    + "Host: " + endpoint.host() + ":" + endpoint.port() + "\r\n"
                    + "Connection: keep-alive\r\n\r\n";
            return new Get(endpoint, request.getBytes(StandardCharsets.US_ASCII));
        }
    }

    /** The framing of an answer's body, from its status line and headers. */
    private record Head(int status, long contentLength, boolean chunked, boolean close) {

        boolean hasBody() {
            return status >= 200 && status != 204 && status != 304;
        }
    }

    private final Endpoint endpoint;
    private final byte[] buffer = new byte[8192];
    private final StringBuilder line = new StringBuilder();
    private Socket socket;
    private InputStream in;
    private OutputStream out;
    private int position;
    private int limit;
    /** Whether the server sent anything since the current request was written. */
    private boolean received;

    KeepAliveConnection(Endpoint endpoint) {
        this.endpoint = endpoint;
    }

    /**
     * Sends {@code get}, reads the whole answer and returns its status. A kept-alive connection
     * that the server closed while it was idle fails before the first byte of the answer; the
     * request is then sent once more on a new connection, as browsers and {@code HttpClient} do
     * (a GET can be repeated). Any other failure closes the connection and is thrown.
     */
    int send(Get get) throws IOException {
        boolean fresh = socket == null;
        try {
            return exchange(get);
        } catch (IOException e) {
            close();
            if (fresh || received || e instanceof SocketTimeoutException) {
                throw e;
            }
        }
        return send(get);
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                // Nothing to do: the connection is dropped either way.
            }
            socket = null;
        }
    }

    private int exchange(Get get) throws IOException {
        if (socket == null) {
            connect();
        }
        received = false;
        position = 0;
        limit = 0;
        out.write(get.bytes());
        Head head = readHead();
        if (head.hasBody()) {
            readBody(head);
        }
        if (head.close()) {
            close();
        }
        return head.status();
    }

    private void connect() throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.setSoTimeout(READ_TIMEOUT_MS);
            s.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), CONNECT_TIMEOUT_MS);
            in = s.getInputStream();
            out = s.getOutputStream();
        } catch (IOException e) {
            s.close();
            throw e;
        }
        socket = s;
    }

    /** Skips interim answers ({@code 1xx}, which have no body): the final one follows them. */
    private Head readHead() throws IOException {
        Head head = readOneHead();
        while (head.status() < 200) {
            head = readOneHead();
        }
        return head;
    }

    private Head readOneHead() throws IOException {
        String statusLine = readLine();
        if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12 || statusLine.charAt(8) != ' ') {
            throw new ProtocolException("not an HTTP/1.x status line: " + statusLine);
        }
        int status = (int) parse(statusLine.substring(9, 12), 10);
        // HTTP/1.0 closes after each answer unless it says otherwise; HTTP/1.1 keeps the connection.
        boolean close = statusLine.startsWith("HTTP/1.0");
        long contentLength = -1;
        boolean chunked = false;
        for (String header = readLine(); !header.isEmpty(); header = readLine()) {
            int colon = header.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = header.substring(0, colon).trim();
            String value = header.substring(colon + 1).trim().toLowerCase(Locale.ROOT);
            if (name.equalsIgnoreCase("Content-Length")) {
                contentLength = parse(value, 10);
            } else if (name.equalsIgnoreCase("Transfer-Encoding")) {
                chunked = value.endsWith("chunked");
            } else if (name.equalsIgnoreCase("Connection")) {
                close = value.contains("close") || (close && !value.contains("keep-alive"));
            }
        }
        return new Head(status, contentLength, chunked, close);
    }

    /** Chunked wins over Content-Length (RFC 9112, 6.3); a body with neither ends with the connection. */
    private void readBody(Head head) throws IOException {
        if (head.chunked()) {
            skipChunks();
        } else if (head.contentLength() >= 0) {
            skip(head.contentLength());
        } else {
            while (fill()) {
                position = limit;
            }
            close();
        }
    }

    private void skipChunks() throws IOException {
        for (long size = chunkSize(readLine()); size > 0; size = chunkSize(readLine())) {
            skip(size);
            if (!readLine().isEmpty()) {
                throw new ProtocolException("chunk of " + size + " bytes not followed by CRLF");
            }
        }
        // Trailer fields, if any, up to the empty line that ends the answer.
        while (!readLine().isEmpty()) {
            continue;
        }
    }

    private static long chunkSize(String line) throws ProtocolException {
        int extension = line.indexOf(';');
        return parse((extension < 0 ? line : line.substring(0, extension)).trim(), 16);
    }

    private static long parse(String number, int radix) throws ProtocolException {
        try {
            long value = Long.parseLong(number, radix);
            if (value < 0) {
                throw new ProtocolException("negative number in an answer: " + number);
            }
            return value;
        } catch (NumberFormatException e) {
            throw new ProtocolException("not a number in an answer: " + number);
        }
    }

    private void skip(long bytes) throws IOException {
        long left = bytes;
        while (left > 0) {
            if (position == limit && !fill()) {
                throw new EOFException("connection closed with " + left + " bytes of the body unread");
            }
            int n = (int) Math.min(left, limit - position);
            position += n;
            left -= n;
        }
    }

    /** A line of ASCII without its CRLF (or bare LF). */
    private String readLine() throws IOException {
        line.setLength(0);
        while (true) {
            if (position == limit && !fill()) {
                throw new EOFException(line.length() == 0 && !received
                        ? "connection closed before an answer" : "connection closed within a line");
            }
            byte b = buffer[position++];
            if (b == '\n') {
                int end = line.length();
                if (end > 0 && line.charAt(end - 1) == '\r') {
                    line.setLength(end - 1);
                }
                return line.toString();
            }
            if (line.length() == MAX_LINE) {
                throw new ProtocolException("line longer than " + MAX_LINE + " bytes in an answer");
            }
            line.append((char) (b & 0xff));
        }
    }

    /** Reads what the socket has into the empty buffer; false at the end of the stream. */
    private boolean fill() throws IOException {
        int n = in.read(buffer, 0, buffer.length);
        if (n < 0) {
            return false;
        }
        position = 0;
        limit = n;
        received |= n > 0;
        return true;
    }
}
