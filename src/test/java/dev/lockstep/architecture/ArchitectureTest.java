package dev.lockstep.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.properties.HasAnnotations;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.lang.conditions.ArchConditions;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import dev.lockstep.approval.RunningApplications;
import dev.lockstep.platform.AreaApi;
import dev.lockstep.transactions.businessonly.BusinessOnlyTransactions;
import dev.lockstep.transactions.businessonly.BusinessReads;
import dev.lockstep.transactions.workflow.ActionFence;
import dev.lockstep.transactions.workflow.ApprovalProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.transaction.annotation.Transactional;

/**
 * The area rules docs/architecture.md describes, checked on the compiled service: seven areas that
 * depend downward only and reach each other only through the types marked {@link AreaApi}; packages
 * free of cycles; HTTP clients only in the delivery package that no use case depends on.
 */
class ArchitectureTest {

    /** The areas, bottom first: each may use the ones listed before it, never one after it. */
    static final List<String> AREAS_BOTTOM_UP = List.of("platform", "transactions", "recovery", "history", "publishing",
            "approval", "reconciliation");

    private static final Path MAIN_SOURCES = Path.of("src/main/java/dev/lockstep");

    private static final JavaClasses SERVICE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.lockstep");

    private static final Map<String, String> SOURCES_BY_AREA = sourcesByArea();

    @Test
    void theTopLevelHoldsTheAreasAndTheApplicationOnly() {
        assertThat(SERVICE.stream().map(JavaClass::getPackageName).filter(name -> name.startsWith("dev.lockstep."))
                .map(name -> name.split("\\.")[2]).distinct())
                .containsExactlyInAnyOrderElementsOf(AREAS_BOTTOM_UP);
    }

    @Test
    void areasDependDownwardOnly() {
        LayeredArchitecture areas = layeredArchitecture().consideringOnlyDependenciesInLayers();
        for (String area : AREAS_BOTTOM_UP) {
            areas = areas.layer(area).definedBy("dev.lockstep." + area + "..");
        }
        for (int index = 0; index < AREAS_BOTTOM_UP.size(); index++) {
            List<String> above = AREAS_BOTTOM_UP.subList(index + 1, AREAS_BOTTOM_UP.size());
            areas = above.isEmpty() ? areas.whereLayer(AREAS_BOTTOM_UP.get(index)).mayNotBeAccessedByAnyLayer()
                    : areas.whereLayer(AREAS_BOTTOM_UP.get(index)).mayOnlyBeAccessedByLayers(above.toArray(String[]::new));
        }
        areas.check(SERVICE);
    }

    /** docs/architecture.md draws the areas' arrows in Mermaid; they are the ones the service has, no more, no fewer. */
    @Test
    void theDiagramShowsTheAreasDependencies() throws IOException {
        String doc = Files.readString(Path.of("docs/architecture.md"));
        Matcher diagram = Pattern.compile("```mermaid\\n(.*?)```", Pattern.DOTALL).matcher(doc);
        assertThat(diagram.find()).as("a Mermaid diagram in docs/architecture.md").isTrue();
        Set<String> drawn = Pattern.compile("(\\w+) --> (\\w+)").matcher(diagram.group(1)).results()
                .map(arrow -> arrow.group(1) + " --> " + arrow.group(2)).collect(Collectors.toSet());
        assertThat(drawn).isEqualTo(areaDependencies());
    }

    /** The layer rule above reads class files, where an inlined constant leaves no trace; the sources show those too. */
    @Test
    void areasDependDownwardOnlyInTheSourcesToo() {
        assertThat(areaDependencies()).allSatisfy(arrow -> {
            String[] ends = arrow.split(" --> ");
            assertThat(AREAS_BOTTOM_UP.indexOf(ends[1])).as(arrow).isLessThan(AREAS_BOTTOM_UP.indexOf(ends[0]));
        });
    }

    /** Area-to-area dependencies: those in the class files and the imports in the sources (which show inlined constants). */
    private static Set<String> areaDependencies() {
        Set<String> arrows = SERVICE.stream().flatMap(type -> type.getDirectDependenciesFromSelf().stream())
                .filter(ArchitectureTest::crossesAreas)
                .map(dependency -> areaOf(dependency.getOriginClass()).orElseThrow() + " --> "
                        + areaOf(dependency.getTargetClass()).orElseThrow())
                .collect(Collectors.toCollection(HashSet::new));
        Pattern importOfAnotherArea = Pattern.compile("^import (?:static )?dev\\.lockstep\\.(\\w+)\\.", Pattern.MULTILINE);
        SOURCES_BY_AREA.forEach((area, sources) -> importOfAnotherArea.matcher(sources).results()
                .map(imported -> imported.group(1)).filter(imported -> !imported.equals(area))
                .forEach(imported -> arrows.add(area + " --> " + imported)));
        return arrows;
    }

    /** Each area's main sources, read once: its name and all its files' text. */
    private static Map<String, String> sourcesByArea() {
        try (Stream<Path> files = Files.walk(MAIN_SOURCES)) {
            return files.filter(path -> path.toString().endsWith(".java") && path.getNameCount() > MAIN_SOURCES.getNameCount() + 1)
                    .collect(Collectors.groupingBy(path -> path.getName(MAIN_SOURCES.getNameCount()).toString(),
                            Collectors.mapping(ArchitectureTest::read, Collectors.joining("\n"))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void anotherAreaUsesOnlyTheTypesAnAreaOffers() {
        classes().that().resideInAPackage("dev.lockstep.*..").should(useOtherAreasOnlyThroughTheirAreaApi()).check(SERVICE);
    }

    /**
     * Read from the sources: a constant another area uses (a role name, a transaction manager's name) is
     * inlined by the compiler and leaves no trace in the class files.
     */
    @Test
    void everyOfferedTypeIsNamedByAnotherArea() {
        classes().that().areAnnotatedWith(AreaApi.class).should(ArchConditions.be(DescribedPredicate.<JavaClass>describe(
                "named by another area", type -> SOURCES_BY_AREA.entrySet().stream()
                        .filter(area -> !areaOf(type).orElseThrow().equals(area.getKey()))
                        .anyMatch(area -> area.getValue().contains(type.getName())))))
                .check(SERVICE);
    }

    @Test
    void areasHaveNoCycles() {
        slices().matching("dev.lockstep.(*)..").should().beFreeOfCycles().check(SERVICE);
    }

    /** The packages inside each area (what were the top-level packages before the areas) have no cycles either. */
    @Test
    void packagesInsideAnAreaHaveNoCycles() {
        slices().matching("dev.lockstep.*.(*)..").should().beFreeOfCycles().check(SERVICE);
    }

    /** The approval aggregate knows none of the features built on it; the todo projection it keeps knows no approval type. */
    @Test
    void theAggregateDoesNotDependOnItsFeatures() {
        noClasses().that().resideInAPackage("dev.lockstep.approval")
                .should().dependOnClassesThat().resideInAnyPackage("dev.lockstep.approval.application..",
                        "dev.lockstep.approval.countersign..", "dev.lockstep.approval.decision..", "dev.lockstep.approval.handover..",
                        "dev.lockstep.approval.trail..", "dev.lockstep.approval.deadlines..")
                .check(SERVICE);
        noClasses().that().resideInAPackage("dev.lockstep.approval.todo..")
                .should().dependOnClassesThat().resideInAPackage("dev.lockstep.approval")
                .check(SERVICE);
    }

    /** The reference catalog is another application that shares the jar: only the publishing wiring names it. */
    @Test
    void theCatalogStandsApart() {
        noClasses().that().resideOutsideOfPackages("dev.lockstep.publishing.catalog..", "dev.lockstep.publishing.outbox")
                .should().dependOnClassesThat().resideInAPackage("dev.lockstep.publishing.catalog..")
                .check(SERVICE);
    }

    /** No remote call inside an XA transaction: only the delivery package talks HTTP, and no use case reaches it. */
    @Test
    void onlyTheDeliveryPackageMakesHttpCalls() {
        noClasses().that().resideOutsideOfPackage("dev.lockstep.publishing.delivery..")
                .should().dependOnClassesThat().resideInAnyPackage("java.net.http..", "org.springframework.web.client..",
                        "org.springframework.web.reactive.function.client..", "org.apache.hc..", "okhttp3..")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.net.HttpURLConnection")
                .check(SERVICE);
    }

    @Test
    void noUseCaseDependsOnTheDeliveryPackage() {
        noClasses().that().resideInAnyPackage("dev.lockstep.approval..", "dev.lockstep.transactions.usecase..",
                        "dev.lockstep.transactions.workflow..", "dev.lockstep.recovery..")
                .should().dependOnClassesThat().resideInAPackage("dev.lockstep.publishing.delivery..")
                .check(SERVICE);
    }

    private static ArchCondition<JavaClass> useOtherAreasOnlyThroughTheirAreaApi() {
        return new ArchCondition<>("use another area only through types marked @AreaApi") {
            @Override
            public void check(JavaClass type, ConditionEvents events) {
                type.getDirectDependenciesFromSelf().stream().filter(ArchitectureTest::crossesAreas)
                        .filter(dependency -> !dependency.getTargetClass().isEquivalentTo(AreaApi.class))
                        .filter(dependency -> !outermost(dependency.getTargetClass()).isAnnotatedWith(AreaApi.class))
                        .forEach(dependency -> events.add(SimpleConditionEvent.violated(dependency, dependency.getDescription())));
            }
        };
    }

    private static String read(Path source) {
        try {
            return Files.readString(source);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean crossesAreas(Dependency dependency) {
        Optional<String> from = areaOf(dependency.getOriginClass());
        Optional<String> to = areaOf(dependency.getTargetClass());
        return from.isPresent() && to.isPresent() && !from.equals(to);
    }

    private static Optional<String> areaOf(JavaClass type) {
        String[] parts = type.getPackageName().split("\\.");
        return parts.length > 2 && parts[0].equals("dev") && parts[1].equals("lockstep") ? Optional.of(parts[2]) : Optional.empty();
    }

    /** A nested type is offered with the type it is declared in. */
    private static JavaClass outermost(JavaClass type) {
        JavaClass outer = type;
        while (outer.getEnclosingClass().isPresent()) {
            outer = outer.getEnclosingClass().get();
        }
        return outer;
    }

    /**
     * The business-only (local) transaction manager: only work that touches the business database alone
     * names it, and such work lives only here. The manager's name is a constant (inlined by the compiler),
     * so the rule reads the annotations that name it rather than a class dependency.
     */
    private static final String[] BUSINESS_ONLY_WORK = {"dev.lockstep.transactions.businessonly..", "dev.lockstep.transactions.usecase..",
            "dev.lockstep.approval.todo..", "dev.lockstep.approval.application..", "dev.lockstep.transactions.singledatabase.."};

    @Test
    void onlyBusinessOnlyWorkNamesTheLocalTransactionManager() {
        classes().that(nameTheBusinessOnlyManager()).should().resideInAnyPackage(BUSINESS_ONLY_WORK).check(SERVICE);
    }

    /** A one-statement read outside any transaction is business-only work too. */
    @Test
    void onlyBusinessOnlyWorkReadsOutsideTransactions() {
        noClasses().that().resideOutsideOfPackages(BUSINESS_ONLY_WORK)
                .should().dependOnClassesThat().areAssignableTo(BusinessReads.class).check(SERVICE);
    }

    /**
     * Code that runs under the local manager never calls the engine or what holds a running application
     * (their work is on the workflow database): checked on each method's own calls; at run time the JTA
     * manager refuses to begin inside a business-only transaction, which covers deeper calls.
     */
    @Test
    void businessOnlyWorkDoesNotCallTheEngine() {
        methods().that(runUnderTheBusinessOnlyManager()).should(notCallTheEngine()).check(SERVICE);
    }

    private static DescribedPredicate<JavaClass> nameTheBusinessOnlyManager() {
        return DescribedPredicate.describe("name the business-only transaction manager", type -> namesBusinessOnly(type)
                || Stream.concat(type.getCodeUnits().stream().flatMap(unit -> Stream.concat(Stream.of(unit),
                                unit.getParameters().stream())), type.getFields().stream())
                        .anyMatch(ArchitectureTest::namesBusinessOnly));
    }

    private static DescribedPredicate<JavaMethod> runUnderTheBusinessOnlyManager() {
        return DescribedPredicate.describe("run under the business-only transaction manager", method ->
                transactionManagerOf(method).or(() -> transactionManagerOf(method.getOwner()))
                        .filter(BusinessOnlyTransactions.MANAGER::equals).isPresent());
    }

    private static ArchCondition<JavaCodeUnit> notCallTheEngine() {
        return new ArchCondition<>("not call the engine, the action fence or a running application") {
            @Override
            public void check(JavaCodeUnit unit, ConditionEvents events) {
                unit.getMethodCallsFromSelf().stream()
                        .filter(call -> call.getTargetOwner().getPackageName().startsWith("org.activiti")
                                || Stream.of(ApprovalProcess.class, ActionFence.class, RunningApplications.class)
                                        .anyMatch(call.getTargetOwner()::isEquivalentTo))
                        .forEach(call -> events.add(SimpleConditionEvent.violated(call, call.getDescription())));
            }
        };
    }

    private static boolean namesBusinessOnly(HasAnnotations<?> element) {
        return transactionManagerOf(element).filter(BusinessOnlyTransactions.MANAGER::equals).isPresent()
                || element.tryGetAnnotationOfType(Qualifier.class).map(Qualifier::value)
                        .filter(BusinessOnlyTransactions.MANAGER::equals).isPresent();
    }

    private static Optional<String> transactionManagerOf(HasAnnotations<?> element) {
        return element.tryGetAnnotationOfType(Transactional.class).map(Transactional::transactionManager);
    }
}
