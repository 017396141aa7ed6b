package org.sparknet.api.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.testnet.SoftmaxNetProvider;

/** The device rule, without Spark: what a task's nets run on for each device string. */
class TaskDevicesTest {
  private static final String[] NONE = {};

  @Test
  void concreteDevicesAreKeptAndAGroupTakesConsecutiveGpus() {
    assertEquals(List.of("cpu", "cpu"), TaskDevices.assign("cpu", 3, 2, new String[] {"5"}, 8));
    assertEquals(List.of("gpu:2", "gpu:3"), TaskDevices.assign("gpu:2", 0, 2, NONE, 0));
  }

  @Test
  void sparksAssignmentWinsForGpuAndAuto() {
    String[] given = {"3", "1"};
    assertEquals(List.of("gpu:3"), TaskDevices.assign("auto", 0, 1, given, 0));
    assertEquals(List.of("gpu:3", "gpu:1"), TaskDevices.assign("gpu", 7, 2, given, 8));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> TaskDevices.assign("gpu", 4, 3, given, 8));
    assertTrue(e.getMessage().contains("spark.task.resource.gpu.amount=3"), e.getMessage());
  }

  @Test
  void withoutAnAssignmentAutoIsTheCpuAndGpuGoesRoundRobin() {
    assertEquals(List.of("cpu"), TaskDevices.assign("auto", 5, 1, NONE, 4));
    assertEquals(List.of("gpu:1"), TaskDevices.assign("gpu", 5, 1, NONE, 4));
    assertEquals(List.of("gpu:2", "gpu:3"), TaskDevices.assign("gpu", 1, 2, NONE, 4));
    assertEquals(List.of("gpu:0", "gpu:1"), TaskDevices.assign("gpu", 2, 2, NONE, 4));
    IllegalArgumentException none =
        assertThrows(
            IllegalArgumentException.class, () -> TaskDevices.assign("gpu", 0, 1, NONE, 0));
    assertTrue(none.getMessage().contains("the executor can use none"), none.getMessage());
    assertThrows(IllegalArgumentException.class, () -> TaskDevices.assign("gpu", 0, 3, NONE, 2));
  }

  @Test
  void theDriverRunsRulesOnTheCpuAndDefinitionsCheckTheDevice() {
    NetDefinition d = new NetDefinition("x", "s", null, null, 0, "auto");
    assertEquals("cpu", TaskDevices.forDriver(d).device());
    assertEquals("gpu:1", TaskDevices.forDriver(d.withDevice("gpu:1")).device());
    assertThrows(IllegalArgumentException.class, () -> d.withDevice("cuda"));
  }

  @Test
  void aTaskThatFindsNoGpuSaysWhatTheEngineLacks() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> TaskDevices.forTask(SoftmaxNetProvider.ENGINE, "gpu", 0, 1));
    assertTrue(
        e.getMessage().endsWith(": engine '" + SoftmaxNetProvider.ENGINE + "' runs on CPUs only"),
        e.getMessage());
  }
}
