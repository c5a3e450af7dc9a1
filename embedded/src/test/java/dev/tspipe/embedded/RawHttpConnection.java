package dev.tspipe.embedded;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP/1.1 connection over a plain socket, for requests whose bytes must reach the server
 * exactly as written (an HTTP client would normalize the path or the header case), kept alive
 * across requests.
 */
final class RawHttpConnection implements AutoCloseable {

    record Answer(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RawHttpConnection(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(10_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /** Sends {@code method target} with these header lines and body (Content-Length added when a body is given). */
    Answer send(String method, String target, String body, String... headerLines) throws IOException {
        StringBuilder request = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\nHost: localhost\r\n");
        for (String line : headerLines) {
            request.append(line).append("\r\n");
        }
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        if (body != null) {
            request.append("Content-Type: application/vnd.schemaregistry.v1+json\r\nContent-Length: ").append(bytes.length).append("\r\n");
        }
        request.append("\r\n");
        out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.write(bytes);
        out.flush();
        return read();
    }

    /** Writes raw bytes (a request of any shape, possibly incomplete). */
    void write(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Reads one answer: status line, headers, a body by Content-Length, chunks or up to the end of the stream. */
    Answer read() throws IOException {
        String statusLine = line();
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line = line(); !line.isEmpty(); line = line()) {
            int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
        }
        byte[] body;
        if (headers.containsKey("content-length")) {
            body = in.readNBytes(Integer.parseInt(headers.get("content-length")));
        } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            ByteArrayOutputStream chunks = new ByteArrayOutputStream();
            for (int size = Integer.parseInt(line().split(";")[0].trim(), 16); size > 0;
                 size = Integer.parseInt(line().split(";")[0].trim(), 16)) {
                chunks.write(in.readNBytes(size));
                line();
            }
            line();
            body = chunks.toByteArray();
        } else {
            body = in.readAllBytes();
        }
        return new Answer(status, headers, new String(body, StandardCharsets.UTF_8));
    }

    private String line() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("connection closed mid-line: " + line);
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
