package org.sparknet.bench;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The architecture, checked on every module's main classes (this module sees them all): each
 * module's {@code internal} package is used by that module alone, no package takes part in a
 * dependency cycle, and the engine SPI does not depend on Spark or Hadoop.
 *
 * <p>Each rule was seen to fail on the code it guards against: apps importing {@code
 * caffe.internal.TextFormat} and {@code api.internal.RowConversion}, the {@code internal} <->
 * {@code train} and {@code spark} <-> {@code spark.internal} cycles, and the public {@code
 * NetProvider} importing {@code internal.WeightsFormat}.
 *
 * <p>The same holds for the import statements of every module's main sources ({@link
 * SourceImports}): no two files import each other, directly or through others, and no package takes
 * part in a cycle. An import that only a Javadoc {@code {@link}} uses, or a constant that the
 * compiler inlines, is invisible in the bytecode the rules above read; a Javadoc link needs no
 * import (it takes the fully qualified name).
 */
class ArchitectureTest {
  private static JavaClasses main;
  private static SourceImports sources;

  @BeforeAll
  static void importMainClasses() {
    main =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            // Test jars of other modules (shared test helpers) are tests too.
            .withImportOption(location -> !location.contains("-tests.jar"))
            .importPackages("org.sparknet");
    sources = SourceImports.ofMainSources(Path.of("").toAbsolutePath().getParent());
  }

  /**
   * Seen red with the two circles of the past put back, {@code averaging.Averager} importing {@code
   * SolverGroup} and {@code WeightCollection} for Javadoc links: "no two main source files import
   * each other ==> expected: <[]> but was: <[org.sparknet.api.SolverGroup ->
   * org.sparknet.api.averaging.Averager -> org.sparknet.api.SolverGroup]>" (one loop a group),
   * while {@link #noPackageTakesPartInACycle} on the bytecode passed.
   */
  @Test
  void noTwoMainSourceFilesImportEachOther() {
    assertEquals(
        List.of(),
        SourceImports.cycles(sources.files()),
        "no two main source files import each other");
  }

  /**
   * Seen red in the same build, which also had {@code internal.worker.BlasThreads} importing {@code
   * train.SparkSettings} for a constant the compiler inlines: "no package takes part in a cycle of
   * imports ==> expected: <[]> but was: <[org.sparknet.api -> org.sparknet.api.averaging ->
   * org.sparknet.api, org.sparknet.api.internal.driver -> org.sparknet.api.internal.worker ->
   * org.sparknet.api.train -> org.sparknet.api.internal.driver]>".
   */
  @Test
  void noPackageTakesPartInACycleOfImports() {
    assertEquals(
        List.of(),
        SourceImports.cycles(sources.packages()),
        "no package takes part in a cycle of imports");
  }

  /** The source check finds a loop of three files, through a nested type and a static import. */
  @Test
  void theSourceCheckFindsALoop() {
    SourceImports g =
        SourceImports.of(
            Map.of(
                Path.of("A.java"), "package p;\nimport q.B.Inner;\nclass A {}\n",
                Path.of("B.java"), "package q;\nimport static r.C.f;\nclass B {}\n",
                Path.of("C.java"), "package r;\n/** {@link p.A} */\nclass C {}\n"));
    assertEquals(
        List.of(), SourceImports.cycles(g.files()), "a link by its full name is no import");
    g =
        SourceImports.of(
            Map.of(
                Path.of("A.java"), "package p;\nimport q.B.Inner;\nclass A {}\n",
                Path.of("B.java"), "package q;\nimport static r.C.f;\nclass B {}\n",
                Path.of("C.java"), "package r;\nimport p.*;\n/** {@link A} */\nclass C {}\n"));
    assertEquals(List.of("p.A -> q.B -> r.C -> p.A"), SourceImports.cycles(g.files()));
    assertEquals(List.of("p -> q -> r -> p"), SourceImports.cycles(g.packages()));
  }

  @Test
  void eachInternalPackageIsUsedByItsOwnModuleOnly() {
    for (String module : new String[] {"api", "caffe", "rbm"}) {
      noClasses()
          .that()
          .resideOutsideOfPackage("org.sparknet." + module + "..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("org.sparknet." + module + ".internal..")
          .because("org.sparknet." + module + ".internal is not API")
          .check(main);
    }
  }

  @Test
  void publicPackagesDoNotDependOnTheirModulesInternals() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "org.sparknet.api",
            "org.sparknet.api.averaging",
            "org.sparknet.api.net",
            "org.sparknet.api.predict")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.sparknet.api.internal..")
        .because("the engine SPI is what engines build on; internals build on it, not the reverse")
        .check(main);
  }

  @Test
  void noPackageTakesPartInACycle() {
    slices().matching("org.sparknet.(**)").should().beFreeOfCycles().check(main);
  }

  @Test
  void theEngineSpiKnowsNothingOfSparkOrHadoop() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "org.sparknet.ndarray..",
            "org.sparknet.api",
            "org.sparknet.api.averaging",
            "org.sparknet.api.net",
            "org.sparknet.api.predict")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.apache.spark..", "org.apache.hadoop..", "scala..")
        .because("engines and the net builder are usable without Spark")
        .check(main);
  }

  /**
   * The roles of {@code api.internal} stay layers: the wire format knows no other role, the
   * averaging rules and checkpoints know only the wire format, the worker side never reaches into
   * the driver's. Seen to fail with RoundTotals calling the averaging rule (wire -> averaging).
   */
  @Test
  void apiInternalRolesAreLayered() {
    String internal = "org.sparknet.api.internal.";
    String[][] forbidden = {
      {"wire", "driver", "worker", "checkpoint", "averaging"},
      {"averaging", "driver", "worker", "checkpoint"},
      {"checkpoint", "driver", "worker", "averaging"},
      {"worker", "driver", "checkpoint"},
    };
    for (String[] rule : forbidden) {
      String[] targets = new String[rule.length - 1];
      for (int i = 1; i < rule.length; i++) {
        targets[i - 1] = internal + rule[i] + "..";
      }
      noClasses()
          .that()
          .resideInAPackage(internal + rule[0] + "..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(targets)
          .because("api.internal." + rule[0] + " sits below " + String.join(", ", targets))
          .check(main);
    }
  }
}
