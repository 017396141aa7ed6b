package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.apps.testing.CliFixtures;

/**
 * The spark-submit jar as users run it: target/sparknet-apps-*-all.jar (built in the package phase)
 * under {@code org.apache.spark.deploy.SparkSubmit --master local[2]} in a child JVM whose class
 * path is only Spark (target/spark-jars), with the launcher's JVM flags. Trains Caffe's unchanged
 * LeNet for 2 rounds on 300 Fashion-MNIST images. The child's environment has no GLOG_minloglevel,
 * as under a plain spark-submit, and Caffe's glog still prints nothing.
 */
class ShadedJarSparkSubmitIT {
  private static final Path TARGET = Path.of("target");

  /** A glog line: severity and date, time, thread, then the source file and line. */
  private static final Pattern GLOG_LINE =
      Pattern.compile(
          "(?m)^[IWE]\\d{4} \\d{2}:\\d{2}:\\d{2}\\.\\d+ +\\d+ [\\w.]+\\.(cpp|hpp):\\d+\\]");

  @TempDir Path tmp;

  @Test
  void sparkSubmitTrainsAndWritesTheCaffeModel() throws Exception {
    Path jar = shadedJar();
    Path data = tmp.resolve("data");
    CliFixtures.fashionMnistSubset(data, 300, 100);
    Path solver = CliFixtures.caffeLeNet(tmp.resolve("caffe"));
    Path out = tmp.resolve("out");

    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx2g");
    String flags = Files.readString(TARGET.resolve("launcher/jvm-flags.txt")).strip();
    cmd.addAll(Arrays.asList(flags.split("\\s+")));
    cmd.add("-Dlog4j2.configurationFile=" + TARGET.resolve("launcher/log4j2.properties"));
    cmd.add("-cp");
    cmd.add(TARGET.resolve("spark-jars").toAbsolutePath() + File.separator + "*");
    cmd.addAll(
        List.of(
            "org.apache.spark.deploy.SparkSubmit",
            "--master",
            "local[2]",
            "--class",
            SparkNetCli.class.getName(),
            jar.toString(),
            "train",
            "--solver",
            solver.toString(),
            "--train",
            data.resolve("train-images-idx3-ubyte").toString(),
            "--test",
            data.resolve("t10k-images-idx3-ubyte").toString(),
            "--format",
            "idx",
            "--workers",
            "2",
            "--tau",
            "5",
            "--rounds",
            "2",
            "--output",
            out.toString()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    // As a user's shell has it: nothing set for glog (the build's test environment sets it).
    pb.environment().remove("GLOG_minloglevel");
    pb.environment().put("OPENBLAS_NUM_THREADS", "1");
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    Path log = tmp.resolve("child.log");
    pb.redirectOutput(log.toFile());
    Process p = pb.start();
    boolean done = p.waitFor(5, TimeUnit.MINUTES);
    if (!done) {
      p.destroyForcibly();
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    System.out.println(output);
    assertTrue(done, "spark-submit did not finish in 5 minutes:\n" + output);
    assertEquals(0, p.exitValue(), output);
    assertTrue(output.contains("round   2/2"), output);
    Path model = out.resolve("final.caffemodel");
    assertTrue(Files.size(model) > 1_000_000, "LeNet's 431,080 floats in " + model);
    assertEquals(2, Files.readAllLines(out.resolve("metrics.jsonl")).size(), output);
    // Without CaffeRuntime.quietGlog glog prints every net Caffe sets up: one LeNet (its train and
    // test nets) gave 205 such lines, beginning "I1126 ... net.cpp:53] Initializing net from
    // parameters:" (GpuProbe with GLOG_minloglevel=0; 0 lines with nothing set).
    Matcher glog = GLOG_LINE.matcher(output);
    assertFalse(glog.find(), () -> "Caffe's glog printed: " + glog.group());
  }

  private static Path shadedJar() throws Exception {
    try (Stream<Path> s = Files.list(TARGET)) {
      return s.filter(f -> f.getFileName().toString().matches("sparknet-apps-.*-all\\.jar"))
          .findFirst()
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "No target/sparknet-apps-*-all.jar: run this IT through 'mvn verify',"
                          + " which builds it in the package phase"))
          .toAbsolutePath();
    }
  }
}
