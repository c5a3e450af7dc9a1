package dev.tspipe.query.auth;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A tokens file ({@link ApiTokens}), read again whenever its content changes: a token is revoked by
 * removing its line, without a restart. The file is read every poll interval (it is small) and
 * compared with what was read before; file times are not trusted, as they are coarse on some file
 * systems and kept by some copy tools.
 *
 * <p>A changed file that cannot be read or parsed does not replace the tokens in use: as Prometheus
 * and nginx keep their configuration when a reload fails, the previous tokens stay, the error is
 * logged (naming the line, never a token) each time the content changes, and {@link #valid()} turns false
 * until the file is right again ({@code tspipe_api_tokens_file_valid} in {@code /metrics}).
 */
public final class TokenFile implements AutoCloseable {

    /** How often the file is read again by default. */
    public static final Duration DEFAULT_POLL = Duration.ofSeconds(1);

    private static final Logger LOG = LoggerFactory.getLogger(TokenFile.class);

    private final Path file;
    private final boolean multiTenant;
    private final ScheduledExecutorService poller;
    private volatile ApiTokens tokens;
    private volatile boolean valid = true;
    private byte[] lastRead;

    private TokenFile(Path file, boolean multiTenant, ApiTokens tokens, byte[] content, Duration poll) {
        this.file = file;
        this.multiTenant = multiTenant;
        this.tokens = tokens;
        this.lastRead = content;
        this.poller = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "tspipe-tokens-file");
            thread.setDaemon(true);
            return thread;
        });
        poller.scheduleWithFixedDelay(this::reloadIfChanged, poll.toMillis(), poll.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Reads the file and watches it.
     *
     * @throws IllegalArgumentException when the file cannot be read or a line is wrong (the message says which)
     */
    public static TokenFile open(Path file, boolean multiTenant, Duration poll) {
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the tokens file " + file + ": " + e);
        }
        ApiTokens tokens = parse(content, file, multiTenant);
        LOG.info("API tokens: {} from {}; the file is read again every {} ms", tokens.size(), file, poll.toMillis());
        return new TokenFile(file, multiTenant, tokens, content, poll);
    }

    /** The tokens in use. */
    public ApiTokens tokens() {
        return tokens;
    }

    /** False while the file's content is one that could not be used (the previous tokens are in use). */
    public boolean valid() {
        return valid;
    }

    public Path path() {
        return file;
    }

    /** Reads the file now; the poller does it every interval. */
    void reloadIfChanged() {
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (IOException e) {
            if (lastRead != null) {
                LOG.error("Cannot read the tokens file {} ({}); the {} tokens read before stay in use", file, e, tokens.size());
            }
            lastRead = null;
            valid = false;
            return;
        }
        if (Arrays.equals(content, lastRead)) {
            return;
        }
        lastRead = content;
        try {
            ApiTokens changed = parse(content, file, multiTenant);
            tokens = changed;
            valid = true;
            LOG.info("API tokens: {} from {} (the file changed)", changed.size(), file);
        } catch (IllegalArgumentException e) {
            valid = false;
            LOG.error("The tokens file changed but cannot be used, the {} tokens read before stay in use: {}",
                    tokens.size(), e.getMessage());
        }
    }

    private static ApiTokens parse(byte[] content, Path file, boolean multiTenant) {
        List<String> lines = new String(content, StandardCharsets.UTF_8).lines().toList();
        return ApiTokens.parse(lines, file.toString(), multiTenant);
    }

    @Override
    public void close() {
        poller.shutdownNow();
    }
}
