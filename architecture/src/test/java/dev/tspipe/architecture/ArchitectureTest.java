package dev.tspipe.architecture;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The rules of docs/architecture.md's map, over the main classes of every module: a rule broken by a change fails the
 * build here, naming the classes and the dependency that break it.
 */
@AnalyzeClasses(packages = "dev.tspipe", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    /** The query side's route groups: one job each, none reaches into the composition root or another group's internals. */
    private static final String[] ROUTE_GROUPS = {"dev.tspipe.query.series..", "dev.tspipe.query.write..",
            "dev.tspipe.query.devices..", "dev.tspipe.query.stats..", "dev.tspipe.query.health..",
            "dev.tspipe.query.console..", "dev.tspipe.query.prometheus.."};

    /** Every package is a slice of its own: no two packages of any module import each other, directly or in a circle. */
    @ArchTest
    static final ArchRule noPackageCycles = slices().matching("dev.tspipe.(**)").should().beFreeOfCycles();

    /**
     * Jackson is the one library allowed beside schemas' own classes and Avro: a key-layout proposal is a JSON document
     * ({@code KeyLayoutProposal}, {@code KeyLayoutLinter}), and schemas brings Jackson for the registry's JSON already.
     */
    @ArchTest
    static final ArchRule theModelDependsOnSchemasOnly = classes().that().resideInAPackage("dev.tspipe.model..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("dev.tspipe.model..", "dev.tspipe.schemas..", "java..",
                    "org.apache.avro..", "com.fasterxml.jackson..")
            .because("the model (keys, rows, device rules) is the one thing every module shares: no Kafka, Kafka Streams, "
                    + "RocksDB or HTTP comes with it");

    @ArchTest
    static final ArchRule onlyTheServerImportsTheServer = noClasses().that().resideInAPackage("dev.tspipe.query..")
            .and().resideOutsideOfPackage("dev.tspipe.query.server..")
            .should().dependOnClassesThat().resideInAPackage("dev.tspipe.query.server..")
            .because("the composition root puts the parts together; no part may reach back into it");

    @ArchTest
    static final ArchRule theHttpLayerKnowsNoRouteGroup = noClasses().that().resideInAPackage("dev.tspipe.query.http..")
            .should().dependOnClassesThat().resideInAnyPackage(ROUTE_GROUPS)
            .because("route groups hand their routes, dialects and limits to the route table, not the other way round");

    @ArchTest
    static final ArchRule thePromQlEngineKnowsNoHttp = noClasses().that().resideInAPackage("dev.tspipe.query.promql..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.tspipe.query.prometheus..", "dev.tspipe.query.http..",
                    "io.javalin..", "org.eclipse.jetty..")
            .because("the engine reads through SeriesSource; Prometheus' HTTP API is one way to call it");

    @ArchTest
    static final ArchRule kafkaInternalsOnlyBehindTheAdapter = noClasses()
            .that().haveNameNotMatching("dev\\.tspipe\\.processor\\.store\\.StreamsInternals(\\$.*)?")
            .should().dependOnClassesThat().resideInAPackage("org.apache.kafka..internals..")
            .because("Kafka's internals change without notice between releases: one adapter to mend when they do");
}
