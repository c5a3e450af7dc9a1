package dev.tspipe.query.routing;

import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Carrying out routing plans against fake instances: which target answers, what falls through to
 * the next one, and what is an answer as it is.
 */
class RoutedReadTest {

    private static final String STORE = "raw-rows";
    private static final Forwarder.Request REQUEST = new Forwarder.Request("/api/v1/series/d/m/latest", "Bearer tsp_caller");
    private static final HostInfo OWNER = new HostInfo("10.0.0.1", 8080);
    private static final HostInfo STANDBY = new HostInfo("10.0.0.2", 8080);

    /** This instance's copies: which partitions answer fresh, which stale, and every read asked for. */
    private static final class LocalCopies implements RoutedRead.LocalRead<String> {
        final Set<Integer> fresh = new HashSet<>();
        final Set<Integer> stale = new HashSet<>();
        final List<String> reads = new ArrayList<>();

        @Override
        public Optional<String> read(int partition, boolean staleStores) {
            reads.add(partition + (staleStores ? " stale" : " fresh"));
            if (fresh.contains(partition)) {
                return Optional.of("fresh " + partition);
            }
            return staleStores && stale.contains(partition) ? Optional.of("stale " + partition) : Optional.empty();
        }
    }

    /** Other instances: what each answers (absent = cannot be reached), and who was asked. */
    private static final class Instances implements RoutedRead.RemoteRead {
        final Map<HostInfo, Integer> statuses = new HashMap<>();
        final List<HostInfo> asked = new ArrayList<>();

        @Override
        public Optional<Forwarder.Answer> get(HostInfo host, Forwarder.Request request) {
            asked.add(host);
            assertThat(request).as("the path and the caller's credentials, passed on as they came").isEqualTo(REQUEST);
            Integer status = statuses.get(host);
            return status == null ? Optional.empty() : Optional.of(new Forwarder.Answer(status, Map.of(),
                    (host.host() + " " + status).getBytes(StandardCharsets.UTF_8)));
        }
    }

    private final LocalCopies local = new LocalCopies();
    private final Instances instances = new Instances();
    private final Map<Integer, Long> lags = new HashMap<>();
    private final RoutedRead.LocalLags localLags = (store, partition) -> {
        assertThat(store).isEqualTo(STORE);
        Long lag = lags.get(partition);
        return lag == null ? OptionalLong.empty() : OptionalLong.of(lag);
    };
    private final RoutedRead router = new RoutedRead(instances, localLags, Duration.ZERO);

    private RoutedAnswer<String> answer(Target... plan) {
        return router.answer(STORE, () -> List.of(plan), local, REQUEST);
    }

    @Test
    void theActiveTaskHereAnswersFreshAndNothingElseIsAsked() {
        local.fresh.add(3);
        RoutedAnswer<String> answer = answer(new Target.LocalActive(3), new Target.Remote(STANDBY, true));
        assertThat(answer).isEqualTo(new RoutedAnswer.Local<>("fresh 3", 3, OptionalLong.empty()));
        assertThat(instances.asked).isEmpty();
    }

    @Test
    void aRestoringActiveTaskHereAnswersStaleWithItsLag() {
        local.stale.add(3);
        lags.put(3, 42L);
        RoutedAnswer<String> answer = answer(new Target.LocalActive(3));
        assertThat(answer).isEqualTo(new RoutedAnswer.Local<>("stale 3", 3, OptionalLong.of(42)));
        assertThat(((RoutedAnswer.Local<String>) answer).stale()).isTrue();
        assertThat(local.reads).containsExactly("3 fresh", "3 stale");
    }

    @Test
    void aRestoringActiveTaskTooFarBehindDoesNotAnswerAndTheStandbyHostDoes() {
        local.stale.add(3);     // queryable stale, but no acceptable lag: not asked
        instances.statuses.put(STANDBY, 200);
        RoutedAnswer<String> answer = answer(new Target.LocalActive(3), new Target.Remote(STANDBY, true));
        assertThat(answer).isInstanceOf(RoutedAnswer.Forwarded.class);
        assertThat(((RoutedAnswer.Forwarded<String>) answer).host()).isEqualTo(STANDBY);
        assertThat(local.reads).containsExactly("3 fresh");
    }

    @Test
    void anUnreachableOwnerFallsThroughToTheLocalStandby() {
        local.stale.add(5);
        RoutedAnswer<String> answer = answer(new Target.Remote(OWNER, false), new Target.LocalStandby(5, 7),
                new Target.Remote(STANDBY, true));
        assertThat(answer).isEqualTo(new RoutedAnswer.Local<>("stale 5", 5, OptionalLong.of(7)));
        assertThat(instances.asked).containsExactly(OWNER);
    }

    @Test
    void anOwnerThatAnswers503DuringARestoreFallsThroughToTheStandbyHost() {
        instances.statuses.put(OWNER, 503);
        instances.statuses.put(STANDBY, 200);
        RoutedAnswer<String> answer = answer(new Target.Remote(OWNER, false), new Target.Remote(STANDBY, true));
        assertThat(answer).isInstanceOf(RoutedAnswer.Forwarded.class);
        RoutedAnswer.Forwarded<String> forwarded = (RoutedAnswer.Forwarded<String>) answer;
        assertThat(forwarded.host()).isEqualTo(STANDBY);
        assertThat(new String(forwarded.answer().body(), StandardCharsets.UTF_8)).isEqualTo("10.0.0.2 200");
        assertThat(instances.asked).containsExactly(OWNER, STANDBY);
    }

    @Test
    void anOwnerThatFailsWithAnyOther5xxFallsThroughToo() {
        for (int status : new int[] {500, 502, 504}) {
            instances.asked.clear();
            instances.statuses.put(OWNER, status);
            instances.statuses.put(STANDBY, 200);
            RoutedAnswer<String> answer = answer(new Target.Remote(OWNER, false), new Target.Remote(STANDBY, true));
            assertThat(answer).as("owner answered %d", status).isInstanceOf(RoutedAnswer.Forwarded.class);
            assertThat(((RoutedAnswer.Forwarded<String>) answer).host()).isEqualTo(STANDBY);
            assertThat(instances.asked).containsExactly(OWNER, STANDBY);
        }
    }

    @Test
    void a4xxOfTheOwnerIsTheAnswerAndNoStandbyIsAsked() {
        for (int status : new int[] {400, 404}) {
            instances.asked.clear();
            instances.statuses.put(OWNER, status);
            instances.statuses.put(STANDBY, 200);
            local.stale.add(5);
            RoutedAnswer<String> answer = answer(new Target.Remote(OWNER, false), new Target.LocalStandby(5, 0),
                    new Target.Remote(STANDBY, true));
            assertThat(answer).isInstanceOf(RoutedAnswer.Forwarded.class);
            assertThat(((RoutedAnswer.Forwarded<String>) answer).answer().status()).isEqualTo(status);
            assertThat(instances.asked).containsExactly(OWNER);
            assertThat(local.reads).isEmpty();
        }
    }

    @Test
    void whenNothingAnswersEveryAttemptIsListedInPlanOrder() {
        instances.statuses.put(STANDBY, 503);
        lags.put(5, 3L);
        RoutedAnswer<String> answer = answer(new Target.Remote(OWNER, false), new Target.LocalStandby(5, 3),
                new Target.Remote(STANDBY, true));
        assertThat(answer).isInstanceOf(RoutedAnswer.NoneAnswered.class);
        assertThat(((RoutedAnswer.NoneAnswered<String>) answer).attempts()).containsExactly(
                "10.0.0.1:8080 (active) cannot be reached",
                "the standby of partition 5 here cannot answer",
                "10.0.0.2:8080 (standby) answered 503");
    }

    @Test
    void anEmptyPlanIsNoneAnswered() {
        RoutedAnswer<String> answer = answer();
        assertThat(answer).isInstanceOf(RoutedAnswer.NoneAnswered.class);
        assertThat(((RoutedAnswer.NoneAnswered<String>) answer).attempts()).containsExactly("the partition of the key is not known yet");
    }

    @Test
    void aPartitionReadStaleForTheActiveIsNotReadAgainForTheStandbyTarget() {
        lags.put(2, 0L);
        answer(new Target.LocalActive(2), new Target.LocalStandby(2, 0));
        assertThat(local.reads).containsExactly("2 fresh", "2 stale");
    }

    @Test
    void whatTheLocalReadThrowsIsTheAnswer() {
        RoutedRead.LocalRead<String> notFound = (partition, stale) -> {
            throw new IllegalStateException("404 of the read");
        };
        assertThatThrownBy(() -> router.answer(STORE, () -> List.of(new Target.LocalActive(1), new Target.Remote(STANDBY, true)),
                notFound, REQUEST)).hasMessage("404 of the read");
        assertThat(instances.asked).isEmpty();
    }

    /**
     * A standby that becomes the active task is queryable nowhere for a moment: the read makes its plan
     * again and answers from the new active task instead of a 503.
     */
    @Test
    void whileNoCopyIsQueryableThePlanIsMadeAgainUntilOneAnswers() {
        RoutedRead patient = new RoutedRead(instances, localLags, Duration.ofSeconds(30));
        List<List<Target>> plans = new ArrayList<>();
        RoutedAnswer<String> answer = patient.answer(STORE, () -> {
            // First the standby here (gone), then the metadata names this instance active, and it opens.
            List<Target> plan = plans.isEmpty() ? List.of(new Target.Remote(OWNER, false), new Target.LocalStandby(4, 0))
                    : List.of(new Target.LocalActive(4));
            if (plans.size() == 2) {
                local.fresh.add(4);
            }
            plans.add(plan);
            return plan;
        }, local, REQUEST);
        assertThat(answer).isEqualTo(new RoutedAnswer.Local<>("fresh 4", 4, OptionalLong.empty()));
        assertThat(plans).hasSize(3);
        assertThat(local.reads).containsExactly("4 stale", "4 fresh", "4 fresh");
    }

    @Test
    void anEmptyPlanIsNotWaitedFor() {
        RoutedRead patient = new RoutedRead(instances, localLags, Duration.ofMinutes(10));
        int[] plans = {0};
        RoutedAnswer<String> answer = patient.answer(STORE, () -> {
            plans[0]++;
            return List.of();
        }, local, REQUEST);
        assertThat(answer).isInstanceOf(RoutedAnswer.NoneAnswered.class);
        assertThat(plans[0]).isEqualTo(1);
    }
}
