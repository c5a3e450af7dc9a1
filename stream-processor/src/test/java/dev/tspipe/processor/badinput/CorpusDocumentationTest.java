package dev.tspipe.processor.badinput;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/reliability.md lists the corpus: every case with its expected outcome, and no other. */
class CorpusDocumentationTest {

    private static final Path DOC = Path.of("..", "docs", "reliability.md");
    private static final Pattern ROW = Pattern.compile("^\\| \\d+ \\| `([^`]+)` \\|.*\\| \\*\\*([a-z-]+)\\*\\* \\|", Pattern.MULTILINE);

    @Test
    void theDocumentedTableIsTheCorpus() throws IOException {
        String doc = Files.readString(DOC);
        String section = doc.substring(doc.indexOf("## Bad input corpus"));
        List<String> documented = ROW.matcher(section).results().map(m -> m.group(1) + " " + m.group(2)).toList();

        List<String> corpus = BadInputCorpus.cases().stream().map(c -> c.name() + " " + c.expect()).toList();
        assertThat(documented).as("rows of the table in %s: one per case of corpus.tsv, in its order", DOC).isEqualTo(corpus);
        Matcher count = Pattern.compile("\\*\\*(\\d+) cases\\*\\*").matcher(section);
        assertThat(count.find()).isTrue();
        assertThat(Integer.parseInt(count.group(1))).isEqualTo(corpus.size());
    }
}
