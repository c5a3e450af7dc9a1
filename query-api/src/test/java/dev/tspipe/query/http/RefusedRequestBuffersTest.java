package dev.tspipe.query.http;

import io.javalin.Javalin;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.ManagedSelector;
import org.eclipse.jetty.io.RetainableByteBuffer;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The race that HttpFuzzIT met once in a few runs (an answer whose status line was the tail of the previous client's
 * 23 KB request line; a request answered "No URI"; a kept-alive connection closed without an answer), made
 * deterministic. After a request Jetty refuses while more of it is still unread (here a request line over
 * {@link JsonErrorPages#REQUEST_HEADER_BYTES}), Jetty 12.1 answers it on a second thread, and that answer's completion
 * resumes reading the connection on a third while the first has not yet released the request buffer: the third
 * fills the very buffer the first then gives back. Where the connections take their buffers from a pool, the next
 * connection gets that buffer while it is still being filled with the refused request's bytes.
 *
 * <p>The schedule the test forces is one a loaded machine can take: the first thread is held just after it hands the
 * error answer to another thread (a thread pool that runs that hand-over and waits, {@link HoldingThreadPool}) until
 * the resumed reader is inside its fill, and that fill is held (an endpoint that waits, {@link HeldEndPoint}) while
 * other clients connect. The server is the edge as built ({@link HttpEdge#configure}: its limits, error pages and its
 * connections' buffers from {@link HttpEdge#connectionBuffers()}), with one more connector on those same buffers and
 * factories whose endpoints can be held. With Jetty's pool ({@code ArrayByteBufferPool}) in place of
 * {@link HttpEdge#connectionBuffers()}, the next connection's first buffer is the one still being filled, every run.
 */
class RefusedRequestBuffersTest {

    /** The buffers the connections of the held connector took, from the moment the held fill began. */
    private final Set<ByteBuffer> takenWhileHeld = Collections.newSetFromMap(new IdentityHashMap<>());
    private final AtomicReference<ByteBuffer> heldBuffer = new AtomicReference<>();
    private final CountDownLatch resumedReaderFilling = new CountDownLatch(1);
    private final CountDownLatch releaseHeldFill = new CountDownLatch(1);
    private final CountDownLatch heldBufferReleased = new CountDownLatch(1);
    private volatile Thread heldThread;

    @Test
    void aBufferStillFilledWithARefusedRequestGoesToNoOtherConnection() throws Exception {
        ByteBufferPool recording = new ByteBufferPool.Wrapper(HttpEdge.connectionBuffers()) {
            @Override
            public RetainableByteBuffer.Mutable acquire(int size, boolean direct) {
                RetainableByteBuffer.Mutable buffer = super.acquire(size, direct);
                if (heldBuffer.get() != null) {
                    synchronized (takenWhileHeld) {
                        takenWhileHeld.add(buffer.getByteBuffer());
                    }
                }
                return new RetainableByteBuffer.Wrapper(buffer) {
                    @Override
                    public boolean release() {
                        boolean released = super.release();
                        if (released && getByteBuffer() == heldBuffer.get()) {
                            heldBufferReleased.countDown();
                        }
                        return released;
                    }
                };
            }
        };
        AtomicReference<ServerConnector> held = new AtomicReference<>();
        Javalin http = Javalin.create(config -> {
            HttpEdge.configure(config, "127.0.0.1", 0, null);
            config.jetty.threadPool = new HoldingThreadPool();
            config.jetty.addConnector((server, httpConfig) -> {
                ServerConnector connector = new ServerConnector(server, null, null, recording, -1, -1,
                        HttpEdge.connectionFactories(httpConfig, null)) {
                    @Override
                    protected SocketChannelEndPoint newEndPoint(SocketChannel channel, ManagedSelector selector,
                                                                SelectionKey key) {
                        SocketChannelEndPoint endPoint = new HeldEndPoint(channel, selector, key, this);
                        endPoint.setIdleTimeout(getIdleTimeout());
                        return endPoint;
                    }
                };
                connector.setHost("127.0.0.1");
                connector.setPort(0);
                held.set(connector);
                return connector;
            });
            config.routes.get("/health", ctx -> ctx.json(java.util.Map.of("status", "ok")));
        });
        http.start();
        try {
            int port = held.get().getLocalPort();
            String refused = "GET /health?from=" + "1".repeat(23_000) + " HTTP/1.1\r\nHost: t\r\n\r\n";
            assertThat(exchange(port, refused)).startsWith("HTTP/1.1 414 ");
            assertThat(resumedReaderFilling.await(10, TimeUnit.SECONDS))
                    .as("Jetty resumed reading the refused connection on another thread").isTrue();
            assertThat(heldBufferReleased.await(10, TimeUnit.SECONDS))
                    .as("the first thread released the buffer that the resumed reader is filling").isTrue();

            // Other clients, while the resumed reader still holds its buffer: each answer is whole and right, and none
            // of their connections took that buffer.
            List<String> answers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                answers.add(exchange(port, "GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
            }
            // And the next takers of a buffer of that size, whoever they are: none gets it.
            ByteBuffer filling = heldBuffer.get();
            List<RetainableByteBuffer> taken = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                taken.add(recording.acquire(filling.capacity(), filling.isDirect()));
            }
            boolean shared;
            synchronized (takenWhileHeld) {
                shared = takenWhileHeld.contains(filling);
            }
            taken.forEach(RetainableByteBuffer::release);
            releaseHeldFill.countDown();
            assertThat(answers).allSatisfy(answer -> assertThat(answer).startsWith("HTTP/1.1 200 ").endsWith("{\"status\":\"ok\"}"));
            assertThat(shared).as("the buffer still being filled with the refused request was given to another taker")
                    .isFalse();
        } finally {
            releaseHeldFill.countDown();
            http.stop();
        }
    }

    /** Sends {@code request} on a new connection and reads until the server closes it. */
    private static String exchange(int port, String request) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            try {
                out.write(request.getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            } catch (IOException closedWhileSending) {
                // The server answers a request line over its limit without reading the rest, and may close first.
            }
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            byte[] chunk = new byte[4096];
            try {
                for (int n; (n = in.read(chunk)) != -1; ) {
                    answer.write(chunk, 0, n);
                }
            } catch (IOException reset) {
                // A reset after the answer (the refused request's unread bytes): what was read is the answer.
            }
            return answer.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /**
     * A pool that, when Jetty hands a refused request's error answer to another thread ({@code badMessage}), runs it
     * and holds the handing thread until the connection is being read on yet another thread: as if the machine had
     * not scheduled the first one for those milliseconds.
     */
    private final class HoldingThreadPool extends QueuedThreadPool {
        HoldingThreadPool() {
            super(32, 4);
        }

        @Override
        public boolean tryExecute(Runnable task) {
            boolean handingOverARefusal = StackWalker.getInstance()
                    .walk(frames -> frames.anyMatch(frame -> frame.getMethodName().equals("badMessage")));
            if (!handingOverARefusal || heldThread != null) {
                return super.tryExecute(task);
            }
            heldThread = Thread.currentThread();
            execute(task);
            try {
                resumedReaderFilling.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return true;
        }
    }

    /** An endpoint whose fill, when the connection the held thread read is read by another thread, waits to be let go. */
    private final class HeldEndPoint extends SocketChannelEndPoint {
        HeldEndPoint(SocketChannel channel, ManagedSelector selector, SelectionKey key, ServerConnector connector) {
            super(channel, selector, key, connector.getScheduler());
        }

        private volatile Thread lastFiller;

        @Override
        public int fill(ByteBuffer buffer) throws IOException {
            Thread first = heldThread;
            Thread previous = lastFiller;
            lastFiller = Thread.currentThread();
            // The refused connection (the held thread filled it last), read again by another thread.
            if (first != null && previous == first && first != Thread.currentThread() && heldBuffer.compareAndSet(null, buffer)) {
                resumedReaderFilling.countDown();
                try {
                    releaseHeldFill.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.fill(buffer);
        }
    }
}
