package dev.lockstep.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
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
import dev.lockstep.approval.RunningApplications;
import dev.lockstep.transactions.businessonly.BusinessOnlyTransactions;
import dev.lockstep.transactions.workflow.ActionFence;
import dev.lockstep.transactions.workflow.ApprovalProcess;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.transaction.annotation.Transactional;

/**
 * The package rules docs/architecture.md describes, checked on the compiled service: packages free of
 * cycles, the platform and web below every feature, HTTP clients only in the delivery package that no
 * use case depends on.
 */
class ArchitectureTest {

    /** Packages that hold use cases or their parts; the platform, web, security and operations sit below them. */
    private static final String[] FEATURES = {"dev.lockstep.approval..", "dev.lockstep.approval.todo..", "dev.lockstep.transactions.workflow..",
            "dev.lockstep.recovery..", "dev.lockstep.transactions.usecase..", "dev.lockstep.transactions.singledatabase..", "dev.lockstep.publishing.outbox..",
            "dev.lockstep.publishing.catalog..", "dev.lockstep.reconciliation..", "dev.lockstep.publishing.delivery..", "dev.lockstep.history.archive..",
            "dev.lockstep.history.archive.."};

    private static final JavaClasses SERVICE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.lockstep");

    @Test
    void topLevelPackagesHaveNoCycles() {
        slices().matching("dev.lockstep.(*)..").should().beFreeOfCycles().check(SERVICE);
    }

    @Test
    void approvalFeaturesHaveNoCycles() {
        slices().matching("dev.lockstep.approval.(*)..").should().beFreeOfCycles().check(SERVICE);
    }

    @Test
    void thePlatformDependsOnNoOtherPartOfTheService() {
        noClasses().that().resideInAPackage("dev.lockstep.platform..")
                .should().dependOnClassesThat().resideOutsideOfPackages("dev.lockstep.platform..", "java..", "javax..", "jakarta..",
                        "org..", "com..", "io..", "tools..")
                .check(SERVICE);
    }

    @Test
    void webAndPlatformSitBelowTheFeatures() {
        noClasses().that().resideInAnyPackage("dev.lockstep.platform.web..", "dev.lockstep.platform..")
                .should().dependOnClassesThat().resideInAnyPackage(FEATURES)
                .orShould().dependOnClassesThat().resideInAnyPackage("dev.lockstep.transactions.xa..")
                .check(SERVICE);
    }

    @Test
    void theAggregateDoesNotDependOnItsFeatures() {
        noClasses().that().resideInAPackage("dev.lockstep.approval")
                .should().dependOnClassesThat().resideInAnyPackage("dev.lockstep.approval.*..")
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
        noClasses().that().resideInAnyPackage("dev.lockstep.approval..", "dev.lockstep.transactions.usecase..", "dev.lockstep.transactions.workflow..",
                        "dev.lockstep.approval.todo..", "dev.lockstep.recovery..")
                .should().dependOnClassesThat().resideInAPackage("dev.lockstep.publishing.delivery..")
                .check(SERVICE);
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
