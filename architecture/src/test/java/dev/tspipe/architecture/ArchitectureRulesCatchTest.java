package dev.tspipe.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.tspipe.fixture.cycle.a.CycleA;
import dev.tspipe.fixture.cycle.b.CycleB;
import dev.tspipe.model.fixture.ModelUsingKafka;
import dev.tspipe.processor.fixture.UsingKafkaInternals;
import dev.tspipe.query.http.fixture.HttpUsingARouteGroup;
import dev.tspipe.query.promql.fixture.EngineUsingHttp;
import dev.tspipe.query.series.fixture.RouteGroupUsingTheServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each rule of {@link ArchitectureTest} fails on a deliberate violation of it (the fixtures, test classes that the
 * main analysis leaves out): a rule that cannot fail would pass whatever the code does.
 */
class ArchitectureRulesCatchTest {

    @Test
    void aPackageCycleIsCaught() {
        assertViolated(ArchitectureTest.noPackageCycles, "CycleA", CycleA.class, CycleB.class);
    }

    @Test
    void theModelUsingKafkaIsCaught() {
        assertViolated(ArchitectureTest.theModelDependsOnSchemasOnly, "Utils", ModelUsingKafka.class);
    }

    @Test
    void aRouteGroupUsingTheServerIsCaught() {
        assertViolated(ArchitectureTest.onlyTheServerImportsTheServer, "QueryServer", RouteGroupUsingTheServer.class);
    }

    @Test
    void theHttpLayerUsingARouteGroupIsCaught() {
        assertViolated(ArchitectureTest.theHttpLayerKnowsNoRouteGroup, "SeriesRoutes", HttpUsingARouteGroup.class);
    }

    @Test
    void theEngineUsingHttpIsCaught() {
        assertViolated(ArchitectureTest.thePromQlEngineKnowsNoHttp, "Context", EngineUsingHttp.class);
    }

    @Test
    void aKafkaInternalOutsideTheAdapterIsCaught() {
        assertViolated(ArchitectureTest.kafkaInternalsOnlyBehindTheAdapter, "RecordHeaders", UsingKafkaInternals.class);
    }

    private static void assertViolated(ArchRule rule, String named, Class<?>... violation) {
        JavaClasses classes = new ClassFileImporter().importClasses(violation);
        EvaluationResult result = rule.evaluate(classes);
        assertThat(result.hasViolation()).as("%s on %s", rule.getDescription(), classes).isTrue();
        assertThat(result.getFailureReport().getDetails()).as(rule.getDescription()).anyMatch(line -> line.contains(named));
    }
}
