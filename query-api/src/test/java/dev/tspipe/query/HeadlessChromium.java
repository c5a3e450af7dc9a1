package dev.tspipe.query;

import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real browser for the web console's tests: Debian's {@code chromium}, headless, opens a page, lets it run for a budget
 * of virtual time (which does not pass while requests are pending, so every call of the page is answered), and gives the
 * DOM as it then is, with a screenshot. A test that needs it is skipped where it is not installed; {@code .ci/run}
 * installs it.
 */
final class HeadlessChromium {

    private static final String COMMAND = "chromium";
    /** Virtual milliseconds the page runs: its first calls, and a poll or two of the latest value. */
    private static final int VIRTUAL_TIME_MS = 10_000;
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final Pattern ATTRIBUTE = Pattern.compile("([a-zA-Z-]+)=\"([^\"]*)\"");

    private HeadlessChromium() {
    }

    /** Skips the calling test, saying why, where {@code chromium} is not on the PATH. */
    static void assumeInstalled(String test) {
        boolean installed = false;
        for (String directory : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            installed |= !directory.isEmpty() && Files.isExecutable(Path.of(directory, COMMAND));
        }
        String message = test + " skipped: " + COMMAND + " is not on PATH; Debian's chromium package provides it "
                + "(apt-get install chromium), and .ci/run installs it when it can";
        if (!installed) {
            System.out.println(message);
        }
        Assumptions.assumeTrue(installed, message);
    }

    /**
     * Opens {@code url} in a new profile under {@code dir} (no token stored), with chromium's {@code options} if any, writes
     * a screenshot to {@code screenshot} and returns the page.
     */
    static Page open(Path dir, String url, Path screenshot, String... options) throws Exception {
        Files.createDirectories(screenshot.toAbsolutePath().getParent());
        Path profile = Files.createTempDirectory(dir, "chromium-profile");
        List<String> command = new ArrayList<>(List.of(COMMAND, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--user-data-dir=" + profile, "--window-size=1280,1500", "--virtual-time-budget=" + VIRTUAL_TIME_MS,
                "--screenshot=" + screenshot.toAbsolutePath(), "--dump-dom"));
        command.addAll(List.of(options));
        command.add(url);
        long started = System.nanoTime();
        ProcessRun run = ProcessRun.of(dir, TIMEOUT, command);
        System.out.println("chromium drew " + url + " in " + (System.nanoTime() - started) / 1_000_000 + " ms; screenshot "
                + screenshot.toAbsolutePath());
        assertThat(run.exit()).as(run.toString()).isZero();
        assertThat(run.stdout()).as(run.toString()).contains("</html>");
        return new Page(run.stdout());
    }

    /** The DOM of a page as the browser left it. */
    record Page(String dom) {

        /** The attributes of the element with this id; an assertion error when there is none. */
        Map<String, String> attributes(String id) {
            Matcher element = Pattern.compile("<[a-zA-Z]+\\s[^>]*\\bid=\"" + Pattern.quote(id) + "\"[^>]*>").matcher(dom);
            assertThat(element.find()).as("an element with id %s in the page:\n%s", id, dom).isTrue();
            Map<String, String> attributes = new LinkedHashMap<>();
            Matcher attribute = ATTRIBUTE.matcher(element.group());
            while (attribute.find()) {
                attributes.put(attribute.group(1), unescape(attribute.group(2)));
            }
            return attributes;
        }

        /** The text of the element with this id (up to its first child tag), unescaped. */
        String text(String id) {
            Matcher element = Pattern.compile("\\bid=\"" + Pattern.quote(id) + "\"[^>]*>([^<]*)").matcher(dom);
            assertThat(element.find()).as("an element with id %s in the page:\n%s", id, dom).isTrue();
            return unescape(element.group(1));
        }

        private static String unescape(String html) {
            return html.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'")
                    .replace("&amp;", "&");
        }
    }
}
