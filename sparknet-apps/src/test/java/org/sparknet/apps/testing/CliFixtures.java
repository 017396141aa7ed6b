package org.sparknet.apps.testing;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.sparknet.apps.cli.SparkNetCli;
import org.sparknet.apps.data.FashionMnist;
import org.sparknet.apps.data.IdxFile;

/**
 * Small real inputs for the CLI tests: the first records of Fashion-MNIST written as plain IDX
 * files under the standard names, and Caffe's unchanged LeNet solver and net laid out so the
 * solver's relative {@code net:} path resolves against the solver's directory.
 */
public final class CliFixtures {
  private CliFixtures() {}

  /** Writes {@code train} training and {@code test} test records into {@code dir}. */
  public static void fashionMnistSubset(Path dir, int train, int test) throws IOException {
    FashionMnist.locate(null); // fails with instructions when the dataset is not installed
    Path src = FashionMnist.DEBIAN_DIR;
    String env = System.getenv("SPARKNET_FASHION_MNIST_DIR");
    if (env != null && !env.isBlank()) {
      src = Path.of(env);
    }
    Files.createDirectories(dir);
    for (String set : new String[] {"train", "t10k"}) {
      int n = set.equals("train") ? train : test;
      copy(src, dir, set + "-images-idx3-ubyte", n);
      copy(src, dir, set + "-labels-idx1-ubyte", n);
    }
  }

  private static void copy(Path srcDir, Path dstDir, String name, int n) throws IOException {
    Path src = srcDir.resolve(name + ".gz");
    if (!Files.exists(src)) {
      src = srcDir.resolve(name);
    }
    IdxFile in = IdxFile.open(src);
    byte[] records = in.readRecords(0, n);
    int[] dims = in.recordDims();
    try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(dstDir.resolve(name)))) {
      out.writeInt(0x0800 | (dims.length + 1));
      out.writeInt(n);
      for (int d : dims) {
        out.writeInt(d);
      }
      out.write(records);
    }
  }

  /**
   * Copies Caffe's lenet_solver.prototxt to {@code dir} and lenet_train_test.prototxt to {@code
   * dir}/examples/mnist, where the solver's {@code net:} names it; returns the solver.
   */
  public static Path caffeLeNet(Path dir) throws IOException {
    Path net = dir.resolve("examples/mnist/lenet_train_test.prototxt");
    Files.createDirectories(net.getParent());
    resource("lenet_train_test.prototxt", net);
    Path solver = dir.resolve("lenet_solver.prototxt");
    resource("lenet_solver.prototxt", solver);
    return solver;
  }

  private static void resource(String name, Path to) throws IOException {
    try (InputStream in = CliFixtures.class.getResourceAsStream("/caffe/examples/mnist/" + name)) {
      if (in == null) {
        throw new IllegalStateException("Test resource /caffe/examples/mnist/" + name + " missing");
      }
      Files.copy(in, to);
    }
  }

  /** The CLI's exit code and what it printed. */
  public record Result(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  /** Runs the CLI in this JVM, capturing stdout and stderr. */
  public static Result run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    int exit;
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      exit = SparkNetCli.run(args);
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
    return new Result(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
