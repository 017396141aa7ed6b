package org.sparknet.bench.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The harness's cheap parts, with no Spark and no Caffe: argument parsing, the sizes the modes
 * imply, the median/min/max summary, and the rewriting of its own sections of BENCHMARKS.md. The
 * benchmark itself is never part of the test run (bench/run).
 */
class LoopOptionsTest {

  @Test
  void defaultsWriteBenchmarksMdAndQuickWritesUnderTarget() {
    LoopOptions full = LoopOptions.parse();
    assertEquals(Path.of("BENCHMARKS.md"), full.output());
    assertEquals(3, full.repeats());
    assertEquals(LoopOptions.ALL_SECTIONS.size(), full.sections().size());
    assertEquals(List.of(1, 10, 50, 200), full.accuracyTaus());
    for (int tau : full.accuracyTaus()) {
      assertEquals(0, full.accuracySteps() % tau, "equal examples for tau " + tau);
    }
    assertEquals(50, full.throughputTau());

    LoopOptions quick = LoopOptions.parse("--quick", "--sections", "tau,demo", "--no-plot");
    assertTrue(quick.quick());
    assertTrue(quick.output().startsWith("sparknet-bench/target"));
    assertTrue(quick.runs("tau") && quick.runs("demo"));
    assertFalse(quick.runs("throughput"));
    assertNull(quick.plot());
    assertEquals("bench/run --quick --sections tau,demo --no-plot", quick.command());
  }

  @Test
  void badArgumentsSayWhatIsWrong() {
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> LoopOptions.parse("--sections", "cuda"))
            .getMessage()
            .contains("Unknown section 'cuda'"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> LoopOptions.parse("--output"))
            .getMessage()
            .startsWith("--output needs a value"));
    assertThrows(IllegalArgumentException.class, () -> LoopOptions.parse("--repeats", "0"));
    assertThrows(IllegalArgumentException.class, () -> LoopOptions.parse("--frobnicate"));
  }

  @Test
  void spreadIsMedianMinMax() {
    Spread odd = Spread.of(List.of(3.0, 1.0, 2.0));
    assertEquals(new Spread(2.0, 1.0, 3.0, 3), odd);
    assertEquals(2.5, Spread.of(List.of(4.0, 1.0, 2.0, 3.0)).median());
    assertEquals("2.0 (1.0–3.0)", odd.format("%.1f"));
  }

  @Test
  void sectionsAreReplacedInPlaceOrAppended() {
    String doc = "# Title\n\nkept\n";
    String once = MarkdownSections.replace(doc, "loop-x", "first");
    assertEquals(
        "# Title\n\nkept\n\n<!-- bench:loop-x:begin -->\nfirst\n<!-- bench:loop-x:end -->\n", once);
    String twice = MarkdownSections.replace(once + "tail\n", "loop-x", "second\n");
    assertEquals(
        "# Title\n\nkept\n\n<!-- bench:loop-x:begin -->\nsecond\n<!-- bench:loop-x:end -->\ntail\n",
        twice);
    assertThrows(
        IllegalArgumentException.class,
        () -> MarkdownSections.replace(MarkdownSections.begin("loop-x") + "\n", "loop-x", "y"));
  }
}
