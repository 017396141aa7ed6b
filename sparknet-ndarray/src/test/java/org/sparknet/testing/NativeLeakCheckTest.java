package org.sparknet.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.FloatPointer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;
import org.sparknet.ndarray.NDArray;

/**
 * Runs small test methods (in {@link Subject}) through the JUnit engine, with extension
 * auto-detection on as in the build, and checks what NativeLeakCheck made of them.
 */
class NativeLeakCheckTest {
  /** Subject's tests only do something when this test runs them. */
  static volatile boolean running;

  static final List<NDArray> LEAKED_ARRAYS = new ArrayList<>();
  static final List<FloatPointer> LEAKED_POINTERS = new ArrayList<>();

  /** Not a test class of its own (surefire skips nested classes); run by the engine kit only. */
  static class Subject {
    @Test
    void leaksAnArray() {
      Assumptions.assumeTrue(running);
      LEAKED_ARRAYS.add(NDArray.zeros(10));
    }

    @Test
    void leaksAPointer() {
      Assumptions.assumeTrue(running);
      LEAKED_POINTERS.add(new FloatPointer(100));
    }

    @Test
    void closesEverything() {
      Assumptions.assumeTrue(running);
      try (NDArray a = NDArray.zeros(10);
          FloatPointer p = new FloatPointer(100)) {
        a.fill(1);
        p.put(0, 1f);
      }
    }

    @Test
    void failsForItsOwnReasonAndLeaks() {
      Assumptions.assumeTrue(running);
      LEAKED_ARRAYS.add(NDArray.zeros(3));
      throw new AssertionError("the test's own reason");
    }
  }

  @AfterEach
  void freeWhatTheSubjectLeaked() {
    running = false;
    LEAKED_ARRAYS.forEach(NDArray::close);
    LEAKED_ARRAYS.clear();
    LEAKED_POINTERS.forEach(FloatPointer::close);
    LEAKED_POINTERS.clear();
  }

  private static Events run(String method) {
    running = true;
    try {
      return EngineTestKit.engine("junit-jupiter")
          .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
          .selectors(selectMethod(Subject.class, method))
          .execute()
          .testEvents();
    } finally {
      running = false;
    }
  }

  private static String failureMessage(Events events) {
    assertEquals(1, events.failed().count(), "exactly one failed test");
    return events.failed().stream()
        .findFirst()
        .orElseThrow()
        .getRequiredPayload(TestExecutionResult.class)
        .getThrowable()
        .orElseThrow()
        .getMessage();
  }

  @Test
  void failsATestThatLeavesAnArrayOpen() {
    Events events = run("leaksAnArray");
    assertEquals(1, LEAKED_ARRAYS.size(), "the subject ran");
    assertEquals(
        "Native memory leak in leaksAnArray(): 1 NDArray storage blocks (40 bytes) were allocated"
            + " and not closed",
        failureMessage(events));
  }

  @Test
  void failsATestThatLeavesAJavaCppPointerAllocated() {
    Assumptions.assumeTrue(
        NativeLeakCheck.JAVACPP_ACCOUNTING,
        "JavaCPP accounting is off in this JVM (nopointergc); sparknet-ndarray runs with it on");
    Events events = run("leaksAPointer");
    assertEquals(1, LEAKED_POINTERS.size(), "the subject ran");
    assertEquals(
        "Native memory leak in leaksAPointer(): JavaCPP holds 400 more bytes than before the"
            + " test; close every Pointer you create",
        failureMessage(events));
  }

  @Test
  void passesATestThatClosesEverything() {
    Events events = run("closesEverything");
    events.assertStatistics(s -> s.started(1).succeeded(1).failed(0));
  }

  @Test
  void keepsTheTestsOwnFailureReason() {
    Events events = run("failsForItsOwnReasonAndLeaks");
    assertEquals(1, LEAKED_ARRAYS.size());
    assertEquals("the test's own reason", failureMessage(events));
  }

  @Test
  void javaCppAccountingIsOnInThisModule() {
    assertTrue(
        NativeLeakCheck.JAVACPP_ACCOUNTING,
        "sparknet-ndarray's surefire runs without nopointergc so that JavaCPP leaks are seen");
  }
}
