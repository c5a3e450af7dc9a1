package dev.tspipe.embedded;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * An HTTP/1.1 client over a plain socket that sends the request bytes exactly as given, so that
 * malformed requests (bad request lines, raw control bytes, oversized headers) really reach the
 * server. Keeps the connection alive between requests while the server does. (The query API's tests have
 * the same client; modules do not share test code.)
 */
final class RawHttp implements AutoCloseable {

    /** An answer: status, headers by lower-case name, body. */
    record Answer(int status, Map<String, String> headers, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private static final int MAX_BODY = 64 * 1024 * 1024;

    private final String host;
    private final int port;
    private Socket socket;
    private InputStream in;
    private OutputStream out;
    private int connections;

    RawHttp(String host, int port) {
        this.host = host;
        this.port = port;
    }

    /** Sends {@code request} (ISO-8859-1, each char one byte) and reads one answer; never a HEAD. */
    Answer exchange(String request) throws IOException {
        return exchange(request.getBytes(StandardCharsets.ISO_8859_1), false);
    }

    /** How many connections this client opened: 1 while the server kept the first alive. */
    int connections() {
        return connections;
    }

    /** Sends {@code request} and reads one answer; {@code head} when the request was a HEAD (an answer without body). */
    Answer exchange(byte[] request, boolean head) throws IOException {
        boolean reused = socket != null;
        try {
            return send(request, head);
        } catch (ClosedWithoutAnswer e) {
            if (!reused) {
                throw e;
            }
            // The server closed the idle keep-alive connection meanwhile: once more on a new one.
            return send(request, head);
        }
    }

    private Answer send(byte[] request, boolean head) throws IOException {
        if (socket == null) {
            socket = new Socket();
            connections++;
            socket.connect(new InetSocketAddress(host, port), 5_000);
            socket.setSoTimeout(10_000);
            socket.setTcpNoDelay(true);
            in = socket.getInputStream();
            out = socket.getOutputStream();
        }
        try {
            out.write(request);
            out.flush();
        } catch (IOException closedWhileSending) {
            // The server may answer and close before reading an oversized request to its end.
        }
        Answer answer = read(head);
        String connection = answer.header("connection");
        // After a HEAD the connection is not reused: a server that could not parse the request line does not
        // know it was a HEAD, answers with a body and closes, which this client could not tell from a
        // Content-Length without body.
        if (head || answer.status() == 101 || connection != null && connection.toLowerCase(Locale.ROOT).contains("close")) {
            close();
        }
        return answer;
    }

    private static final class ClosedWithoutAnswer extends IOException {
        ClosedWithoutAnswer() {
            super("the server closed the connection without an answer");
        }
    }

    private Answer read(boolean head) throws IOException {
        String statusLine = line();
        if (statusLine == null) {
            close();
            throw new ClosedWithoutAnswer();
        }
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP/1.x status line: " + statusLine);
        }
        int status = Integer.parseInt(parts[1]);
        Map<String, String> headers = new TreeMap<>();
        for (String header = line(); header != null && !header.isEmpty(); header = line()) {
            int colon = header.indexOf(':');
            headers.merge(header.substring(0, colon).trim().toLowerCase(Locale.ROOT), header.substring(colon + 1).trim(),
                    (a, b) -> a + ", " + b);
        }
        byte[] body;
        if (head || status == 204 || status == 304 || status / 100 == 1) {
            body = new byte[0];
        } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = chunked();
        } else if (headers.containsKey("content-length")) {
            body = in.readNBytes(Integer.parseInt(headers.get("content-length")));
        } else {
            body = in.readNBytes(MAX_BODY);
            close();
        }
        return new Answer(status, headers, body);
    }

    private byte[] chunked() throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String size = line();
            int length = Integer.parseInt(size.contains(";") ? size.substring(0, size.indexOf(';')).trim() : size.trim(), 16);
            if (length == 0) {
                String trailer = line();
                while (trailer != null && !trailer.isEmpty()) {
                    trailer = line();   // trailers carry nothing this client needs
                }
                return body.toByteArray();
            }
            body.write(in.readNBytes(length));
            line();
        }
    }

    /** One line without its CRLF (ISO-8859-1), or null at the end of the stream. */
    private String line() throws IOException {
        StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                int end = line.length();
                return end > 0 && line.charAt(end - 1) == '\r' ? line.substring(0, end - 1) : line.toString();
            }
            line.append((char) b);
        }
        return line.length() == 0 ? null : line.toString();
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing a socket that is gone anyway
            }
            socket = null;
        }
    }
}
