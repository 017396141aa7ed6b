package org.sparknet.bench.loop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reading Linux's per-thread stat lines and adding them up by thread name. */
class ThreadCpuTest {
  @Test
  void parsesTheNameBetweenTheOuterParenthesesAndAddsUserAndSystemTicks() {
    // A name may hold spaces and parentheses; utime 1234 and stime 56 follow 11 other fields.
    String stat = "4242 (C2 (Compiler) 1) S 1 4200 4200 0 -1 4194368 77 0 3 0 1234 56 0 0 20 0 1";
    ThreadCpu.Sample s = ThreadCpu.parse(stat);
    assertEquals("C2 (Compiler) 1", s.name());
    // Taking fields 10 and 11 (one to the left) gave 0 + 1234 = 1234.
    assertEquals(1290, s.ticks());
  }

  @Test
  void groupsDropTheThreadNumber() {
    assertEquals("GC Thread", ThreadCpu.group("GC Thread#3"));
    assertEquals("Executor task l", ThreadCpu.group("Executor task l"));
    assertEquals("C2 CompilerThre", ThreadCpu.group("C2 CompilerThre"));
    assertEquals("G1 Conc", ThreadCpu.group("G1 Conc#0"));
    assertEquals("dispatcher-event-loop", ThreadCpu.group("dispatcher-event-loop-1"));
  }

  @Test
  void countsNewThreadsFromZeroAndAReusedIdAsNew() {
    Map<Integer, ThreadCpu.Sample> before =
        Map.of(1, new ThreadCpu.Sample("main", 100), 2, new ThreadCpu.Sample("GC Thread#0", 50));
    Map<Integer, ThreadCpu.Sample> after =
        Map.of(
            1, new ThreadCpu.Sample("main", 300),
            2, new ThreadCpu.Sample("Executor task l", 40), // id 2 reused by another thread
            3, new ThreadCpu.Sample("GC Thread#1", 25));
    Map<String, double[]> g = ThreadCpu.perGroup(before, after);
    assertArrayEquals(new double[] {2.0, 1}, g.get("main"), 1e-9);
    // Subtracting the old thread's 50 ticks from the new one's 40 gave -0.1 s here.
    assertArrayEquals(new double[] {0.4, 1}, g.get("Executor task l"), 1e-9);
    assertArrayEquals(new double[] {0.25, 1}, g.get("GC Thread"), 1e-9);
    assertTrue(ThreadCpu.snapshot().size() > 1, "this JVM's own threads are readable");
  }
}
