package org.sparknet.apps.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Spark's GPU scheduling, end to end without a GPU: a standalone cluster on loopback whose worker
 * discovers GPU addresses 0 and 1 through the shipped discovery script (bin/getGpusResources.sh,
 * with an nvidia-smi that lists two devices), an app that asks for them ({@code
 * spark.executor.resource.gpu.amount}, {@code spark.task.resource.gpu.amount}), and an engine that
 * records each net it builds ({@link DeviceRecorderProvider}) instead of Caffe.
 *
 * <p>Broken builds this catches (each run once against a mutated TaskDevices): every task's net on
 * "gpu:0" whatever Spark assigned gave "partition 1 built on another device ==> expected: gpu:1 but
 * was: gpu:0" and, for the group, "the group's two solvers on the two GPUs ==> expected [gpu:1,
 * gpu:0] but was [gpu:0]"; a group whose members all took the task's first GPU gave the latter.
 */
class GpuSchedulingIT {
  private static StandaloneCluster cluster;
  private static Path appJar;
  private static Path apiTestJar;

  @BeforeAll
  static void startCluster() throws Exception {
    Path scripts = Files.createDirectories(StandaloneCluster.TARGET.resolve("gpu-scheduling"));
    // The shipped discovery script, run by the worker with an nvidia-smi that lists devices 0, 1.
    Path discovery =
        GpuDiscoveryScriptTest.withDevices(scripts, "0\n1\n").resolve("getGpusResources.sh");
    cluster =
        StandaloneCluster.start(
            1,
            new StandaloneCluster.WorkerSpec(
                2,
                "2g",
                Map.of(
                    "spark.worker.resource.gpu.amount",
                    "2",
                    "spark.worker.resource.gpu.discoveryScript",
                    discovery.toString())));
    appJar = appJar(scripts.resolve("gpu-scheduling-app.jar"));
    apiTestJar = apiTestJar(scripts.resolve("sparknet-api-testnet.jar"));
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void eachTaskBuildsItsNetOnTheGpuSparkAssignedIt() throws Exception {
    Run run = submit("one-gpu-per-task", "gpu", 1, "1");
    List<String[]> built = run.builtNets();
    assertFalse(built.isEmpty(), "no net was built on the executors: " + run.output);
    for (String[] b : built) {
      assertEquals("gpu:" + b[1], b[2], "partition " + b[0] + " built on another device");
    }
    // Both partitions' tasks run at once on the one executor of 2 cores and 2 GPUs: distinct GPUs.
    for (List<String> devices : run.roundDevices()) {
      assertEquals(2, devices.size(), run.output);
      assertEquals(Set.of("gpu:0", "gpu:1"), new HashSet<>(devices), "a round's devices");
    }
  }

  @Test
  void aGroupOfTwoSolversTakesTwoGpus() throws Exception {
    Run run = submit("two-gpus-per-task", "auto", 2, "2");
    for (String[] b : run.builtNets()) {
      List<String> assigned = List.of(b[1].split(","));
      assertEquals(2, assigned.size(), "the task holds two GPUs");
      assertTrue(assigned.contains(b[2].substring(4)), "member on an assigned GPU: " + b[2]);
    }
    Set<String> members = new HashSet<>();
    run.builtNets().forEach(b -> members.add(b[2]));
    assertEquals(Set.of("gpu:0", "gpu:1"), members, "the group's two solvers on the two GPUs");
    for (List<String> devices : run.roundDevices()) {
      for (String d : devices) {
        assertEquals(Set.of("gpu:0", "gpu:1"), Set.of(d.split(",")), "a worker of two GPUs");
      }
    }
  }

  /**
   * Spark's own sharing: {@code spark.task.resource.gpu.amount=0.5} on an executor of one GPU puts
   * both tasks of a round on the same address at once, and each builds its net there. A broken
   * build that took the task's partition for its GPU instead of the address Spark assigned
   * (TaskDevices writing "gpu:" + partition) gave "partition 1 built on another device ==>
   * expected: <gpu:0> but was: <gpu:1>".
   */
  @Test
  void twoTasksSharingOneGpuBothRunOnIt() throws Exception {
    Run run = submit("half-a-gpu-per-task", "gpu", 1, "1", "0.5");
    List<String[]> built = run.builtNets();
    Set<String> partitions = new HashSet<>();
    for (String[] b : built) {
      assertEquals(1, b[1].split(",").length, "one address per task: " + b[1]);
      assertEquals("gpu:" + b[1], b[2], "partition " + b[0] + " built on another device");
      partitions.add(b[0]);
    }
    assertEquals(Set.of("0", "1"), partitions, run.output);
    for (List<String> devices : run.roundDevices()) {
      assertEquals(2, devices.size(), run.output);
      assertEquals(1, new HashSet<>(devices).size(), "both workers on the one GPU: " + devices);
    }
  }

  private record Run(String output, Path deviceLog) {
    /** partition, assigned addresses, device: one per net built on an executor. */
    List<String[]> builtNets() throws IOException {
      List<String[]> out = new ArrayList<>();
      Pattern p = Pattern.compile("partition=(\\d+) .*assigned=(\\S*) device=(\\S+)");
      for (String line : Files.readAllLines(deviceLog)) {
        Matcher m = p.matcher(line);
        assertTrue(m.find(), line);
        out.add(new String[] {m.group(1), m.group(2), m.group(3)});
      }
      return out;
    }

    /** Each round's devices by partition, as the driver reported them. */
    List<List<String>> roundDevices() {
      List<List<String>> out = new ArrayList<>();
      Matcher m = Pattern.compile("ROUND \\d+ DEVICES \\[(.*)]").matcher(output);
      while (m.find()) {
        out.add(List.of(m.group(1).split(", ")));
      }
      assertEquals(3, out.size(), output);
      return out;
    }
  }

  private static Run submit(String name, String device, int group, String gpusPerTask)
      throws Exception {
    return submit(name, device, group, "2", gpusPerTask);
  }

  private static Run submit(
      String name, String device, int group, String gpusPerExecutor, String gpusPerTask)
      throws Exception {
    Path deviceLog = cluster.dir().resolve(name + "-devices.log");
    SparkSubmitProcess s =
        cluster.submit(
            name,
            appJar,
            GpuSchedulingApp.class.getName(),
            List.of(StandaloneCluster.shadedJar(), apiTestJar),
            Map.of(
                "spark.executor.cores",
                "2",
                "spark.task.cpus",
                "1",
                "spark.executor.resource.gpu.amount",
                gpusPerExecutor,
                "spark.task.resource.gpu.amount",
                gpusPerTask),
            log4j(),
            List.of(device, Integer.toString(group), "3", deviceLog.toString()));
    int rc = s.await(Duration.ofMinutes(4));
    assertEquals(0, rc, s.output());
    return new Run(s.output(), deviceLog);
  }

  /** The build's launcher log4j2 settings (warnings only), for the driver. */
  private static Path log4j() {
    return StandaloneCluster.TARGET.resolve("launcher/log4j2.properties");
  }

  /** The app and its engine, from this module's test classes, with the engine registered. */
  private static Path appJar(Path jar) throws IOException {
    Path classes = StandaloneCluster.TARGET.resolve("test-classes");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      for (Class<?> c : List.of(GpuSchedulingApp.class, DeviceRecorderProvider.class)) {
        String name = c.getName().replace('.', '/') + ".class";
        put(out, name, Files.readAllBytes(classes.resolve(name)));
      }
      put(
          out,
          "META-INF/services/org.sparknet.api.NetProvider",
          (DeviceRecorderProvider.class.getName() + "\n").getBytes(StandardCharsets.UTF_8));
    }
    return jar;
  }

  /** sparknet-api's test net (SoftmaxNet), from the test class path: a jar, or its classes. */
  private static Path apiTestJar(Path jar) throws IOException {
    for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      Path p = Path.of(entry);
      if (entry.contains("sparknet-api") && entry.endsWith("-tests.jar")) {
        return p;
      }
      if (entry.contains("sparknet-api") && entry.endsWith("test-classes")) {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
            Stream<Path> files = Files.walk(p.resolve("org/sparknet/api/testnet"))) {
          for (Path f : files.filter(Files::isRegularFile).toList()) {
            put(out, p.relativize(f).toString(), Files.readAllBytes(f));
          }
        }
        return jar;
      }
    }
    throw new IllegalStateException("sparknet-api's test classes are not on the class path");
  }

  private static void put(JarOutputStream out, String name, byte[] bytes) throws IOException {
    out.putNextEntry(new JarEntry(name));
    OutputStream o = out;
    o.write(bytes);
    out.closeEntry();
  }
}
