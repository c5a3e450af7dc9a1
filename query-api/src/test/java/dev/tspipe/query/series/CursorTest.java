package dev.tspipe.query.series;

import dev.tspipe.query.error.ApiException;
import dev.tspipe.model.keys.SeriesId;
import org.junit.jupiter.api.Test;

import java.util.Base64;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CursorTest {

    private static final TimeWindow WINDOW = new TimeWindow(0, 1_000_000);

    @Test
    void roundTrips() {
        long seed = Long.getLong("tspipe.seed", 42L);
        Random random = new Random(seed);
        for (int i = 0; i < 1_000; i++) {
            Order order = random.nextBoolean() ? Order.ASC : Order.DESC;
            Cursor cursor = new Cursor(order, random.nextLong() & Long.MAX_VALUE, random.nextInt());
            String token = cursor.encode();
            assertThat(token).as("seed %d: %s", seed, cursor).matches("[A-Za-z0-9_-]{19}");
            assertThat(Cursor.decode(token, order, cursor.queryHash())).as("seed %d: %s", seed, cursor).isEqualTo(cursor);
        }
    }

    @Test
    void tamperedOrForeignTokensAre400() {
        int hash = Cursor.queryHash("readings", null, "d", "m", WINDOW);
        String token = new Cursor(Order.DESC, 12345, hash).encode();
        byte[] bytes = Base64.getUrlDecoder().decode(token);
        for (int i = 0; i < bytes.length; i++) {
            byte[] tampered = bytes.clone();
            tampered[i] ^= (byte) (i == 2 ? 0x80 : 0x01);
            String bad = Base64.getUrlEncoder().withoutPadding().encodeToString(tampered);
            assertThatThrownBy(() -> Cursor.decode(bad, Order.DESC, hash))
                    .as("byte %d flipped", i)
                    .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.getMessage()).startsWith("cursor: "));
        }
        for (String bad : new String[] {"", "!!!", "abc", token + "A", token.substring(1)}) {
            assertThatThrownBy(() -> Cursor.decode(bad, Order.DESC, hash)).isInstanceOf(ApiException.class)
                    .hasMessageStartingWith("cursor: ");
        }
    }

    @Test
    void aCursorOfAnotherQueryIsRefused() {
        SeriesId series = SeriesId.of("d", "m");
        PageRequest desc = PageRequest.parse("readings", series, null, null, "5", "desc", null);
        String token = desc.nextCursor(1_000);
        assertThatThrownBy(() -> PageRequest.parse("readings", series, null, null, "5", "asc", token))
                .hasMessageContaining("order=desc");
        assertThatThrownBy(() -> PageRequest.parse("readings", SeriesId.of("d", "other"), null, null, "5", "desc", token))
                .hasMessageContaining("another query");
        assertThatThrownBy(() -> PageRequest.parse("rollups-1m", series, null, null, "5", "desc", token))
                .hasMessageContaining("another query");
        assertThatThrownBy(() -> PageRequest.parse("readings", series, "1", null, "5", "desc", token))
                .hasMessageContaining("another query");
        // The page size may change between pages.
        assertThat(PageRequest.parse("readings", series, null, null, "50", "desc", token).cursor().lastTimestamp()).isEqualTo(1_000);
    }
}
