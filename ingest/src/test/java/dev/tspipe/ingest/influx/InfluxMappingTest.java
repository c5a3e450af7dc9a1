package dev.tspipe.ingest.influx;

import dev.tspipe.schemas.Reading;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InfluxMappingTest {

    private static final long NOW = 1_793_491_200_000L;

    @Test
    void eachFieldIsAReadingOfTheDeviceTagsDevice() throws Exception {
        List<Reading> readings = InfluxMapping.DEFAULT.readings(
                "cpu,host=web-1,cpu=cpu0 usage_idle=92.5,usage_user=3i,up=t,ticks=18446744073709551615u 1793491200123456789",
                InfluxMapping.Precision.NS, null, NOW);
        assertThat(readings).extracting(Reading::getDeviceId).containsOnly("web-1");
        assertThat(readings).extracting(Reading::getMetric).containsExactly("cpu.usage_idle{cpu=\"cpu0\"}",
                "cpu.usage_user{cpu=\"cpu0\"}", "cpu.up{cpu=\"cpu0\"}", "cpu.ticks{cpu=\"cpu0\"}");
        assertThat(readings).extracting(Reading::getValue).containsExactly(92.5, 3.0, 1.0, 1.8446744073709552E19);
        assertThat(readings).extracting(Reading::getTimestamp).containsOnly(Instant.ofEpochMilli(1_793_491_200_123L));
        assertThat(readings.get(0).getTags()).isEqualTo(Map.of("cpu", "cpu0"));
        assertThat(readings.get(0).getTenant()).isNull();
    }

    @Test
    void theDeviceTagWinsOverHostAndTheMeasurementCanBeLeftOut() throws Exception {
        InfluxMapping fieldOnly = new InfluxMapping(List.of("device", "host"), false);
        Reading reading = fieldOnly.readings("env,device=press-1,host=gw temperature=21.5", InfluxMapping.Precision.S, "acme", NOW)
                .get(0);
        assertThat(reading.getDeviceId()).isEqualTo("press-1");
        assertThat(reading.getMetric()).isEqualTo("temperature{host=\"gw\"}");
        assertThat(reading.getTags()).isEqualTo(Map.of("host", "gw"));
        assertThat(reading.getTenant()).isEqualTo("acme");
        assertThat(reading.getTimestamp()).as("no timestamp: now").isEqualTo(Instant.ofEpochMilli(NOW));
    }

    @Test
    void pointsThatDifferOnlyInATagAreTwoSeriesNotOneOverwritten() throws Exception {
        List<Reading> readings = InfluxMapping.DEFAULT.readings("cpu,host=web-1,cpu=cpu0 usage_idle=92.5 1793491200\n"
                + "cpu,host=web-1,cpu=cpu1 usage_idle=10 1793491200\ncpu,host=web-1 usage_idle=51.25 1793491200",
                InfluxMapping.Precision.S, null, NOW);
        assertThat(readings).extracting(Reading::getMetric).containsExactly("cpu.usage_idle{cpu=\"cpu0\"}",
                "cpu.usage_idle{cpu=\"cpu1\"}", "cpu.usage_idle");
        assertThat(readings).extracting(Reading::getDeviceId).containsOnly("web-1");
    }

    @Test
    void everyPrecision() throws Exception {
        for (Object[] c : new Object[][] {{"ns", 1_793_491_200_123_000_000L}, {"us", 1_793_491_200_123_000L}, {"ms", 1_793_491_200_123L},
                {"s", 1_793_491_200L}, {null, 1_793_491_200_123_000_000L}, {"n", 1_793_491_200_123_000_000L}, {"u", 1_793_491_200_123_000L}}) {
            InfluxMapping.Precision precision = InfluxMapping.Precision.parse((String) c[0]);
            long expected = "s".equals(c[0]) ? 1_793_491_200_000L : 1_793_491_200_123L;
            assertThat(InfluxMapping.DEFAULT.readings("m,device=d v=1 " + c[1], precision, null, NOW).get(0).getTimestamp())
                    .as(String.valueOf(c[0])).isEqualTo(Instant.ofEpochMilli(expected));
        }
        assertThatThrownBy(() -> InfluxMapping.Precision.parse("h")).hasMessage("precision 'h' is not one of ns, us, ms, s");
    }

    @Test
    void aLineThatCannotBeAReadingRefusesTheWholeBodyWithItsNumber() {
        assertThatThrownBy(() -> InfluxMapping.DEFAULT.readings("m,device=d v=1\nm,device=d note=\"hot\"\nm,device=d v=3",
                InfluxMapping.Precision.NS, null, NOW)).isInstanceOf(LineProtocolException.class)
                .hasMessage("line 2: field 'note' is a string; a reading is a number (float, integer, unsigned or boolean): send "
                        + "strings as tags");
        assertThatThrownBy(() -> InfluxMapping.DEFAULT.readings("m,sensor=d v=1", InfluxMapping.Precision.NS, null, NOW))
                .hasMessage("line 1: no device: the point needs a tag device or host that names its device");
        assertThatThrownBy(() -> InfluxMapping.DEFAULT.readings("m,device=d v=1 -5", InfluxMapping.Precision.MS, null, NOW))
                .hasMessageContaining("line 1: timestamp -5 (ms) is before 1970");
        assertThatThrownBy(() -> InfluxMapping.DEFAULT.readings("m,device=d v=1 9223372036854775807", InfluxMapping.Precision.S,
                null, NOW)).hasMessageContaining("line 1: timestamp 9223372036854775807 (s)");
    }
}
