package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;
import picocli.CommandLine;

/**
 * train, test and predict without Spark: help, usage errors and bad input are exit 2 with one line
 * that says why, all found before Spark or Caffe start.
 */
class CommandsTest {
  @TempDir Path tmp;
  private Path data;
  private Path solver;

  @BeforeEach
  void fixtures() throws Exception {
    data = tmp.resolve("data");
    CliFixtures.fashionMnistSubset(data, 10, 10);
    solver = CliFixtures.caffeLeNet(tmp.resolve("caffe"));
  }

  private String train() {
    return data.resolve("train-images-idx3-ubyte").toString();
  }

  private String test() {
    return data.resolve("t10k-images-idx3-ubyte").toString();
  }

  @ParameterizedTest
  @ValueSource(strings = {"train", "test", "predict"})
  void helpDescribesTheOptionsAndExitsZero(String command) {
    Result r = CliFixtures.run(command, "--help");
    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().contains("--format") && r.out().contains("--solver"), r.toString());
  }

  @Test
  void topLevelHelpListsTheCommands() {
    Result r = CliFixtures.run("--help");
    assertEquals(0, r.exit(), r.toString());
    for (String c : new String[] {"demo", "train", "test", "predict"}) {
      assertTrue(r.out().contains(c), r.toString());
    }
    // A description is a format string: an unescaped % (char-rnn's "10% of the text") made picocli
    // print "[picocli WARN] Could not format ..." here.
    assertEquals("", r.err(), r.toString());
  }

  /** Every subcommand SparkNetCli declares, so that one added later is checked too. */
  static Stream<String> commands() {
    return new CommandLine(new SparkNetCli())
        .getSubcommands().keySet().stream().filter(c -> !c.equals("help"));
  }

  /**
   * Each description is a format string: convert's "keys %08d" made picocli print "[picocli WARN]
   * Could not format ..." and show the whole description without its line breaks.
   */
  @ParameterizedTest
  @MethodSource("commands")
  void everyHelpPrintsNothingOnStderr(String command) {
    Result r = CliFixtures.run(command, "--help");
    assertEquals(0, r.exit(), r.toString());
    assertEquals("", r.err(), r.toString());
  }

  /**
   * The bundled LeNet (Input layers, no transform_param scale) on raw IDX bytes diverged to NaN in
   * round 1; it is refused before Spark starts, and trains with --scale.
   */
  @Test
  void aNetWithInputLayersNeedsTheScaleForIdx() throws Exception {
    Path net =
        CliFixtures.copyResource(
            "/org/sparknet/apps/mnist/lenet.prototxt", tmp.resolve("lenet.prototxt"));
    Result r = trainWith(solver, train(), "--net", net.toString());
    assertOneLineExitTwo(r, "this net expects pixels scaled to [0, 1); pass --scale 0.00390625");
    Result test =
        CliFixtures.run(
            "test", "--net", net.toString(), "--weights", net.toString(), "--test", test());
    assertEquals(2, test.exit(), test.toString());
    assertTrue(test.err().contains("pass --scale 0.00390625"), test.toString());
  }

  @ParameterizedTest
  @ValueSource(strings = {"train", "test", "predict"})
  void unknownFlagIsExitTwo(String command) {
    String w = tmp.resolve("w.caffemodel").toString();
    String[] valid =
        switch (command) {
          case "train" ->
              new String[] {
                "--solver",
                solver.toString(),
                "--train",
                train(),
                "--test",
                test(),
                "--workers",
                "2",
                "--tau",
                "5",
                "--rounds",
                "1"
              };
          case "test" ->
              new String[] {"--solver", solver.toString(), "--weights", w, "--test", test()};
          default ->
              new String[] {
                "--solver", solver.toString(), "--weights", w, "--input", test(), "--output", w
              };
        };
    String[] args = new String[valid.length + 2];
    args[0] = command;
    System.arraycopy(valid, 0, args, 1, valid.length);
    args[args.length - 1] = "--no-such-flag";
    Result r = CliFixtures.run(args);
    assertEquals(2, r.exit(), r.toString());
    assertTrue(r.err().contains("Unknown option: '--no-such-flag'"), r.toString());
  }

  @Test
  void trainNeedsExactlyOneOfTauAndTauSeconds() {
    Result r =
        CliFixtures.run(
            "train",
            "--solver",
            solver.toString(),
            "--train",
            train(),
            "--test",
            test(),
            "--workers",
            "2",
            "--rounds",
            "1",
            "--tau",
            "5",
            "--tau-seconds",
            "1");
    assertEquals(2, r.exit(), r.toString());
    assertTrue(r.err().contains("mutually exclusive"), r.toString());
  }

  @Test
  void trainWithAMissingSolverNamesIt() {
    Path missing = tmp.resolve("nope_solver.prototxt");
    Result r = trainWith(missing, train(), "--format", "idx");
    assertOneLineExitTwo(r, missing.toString());
  }

  @Test
  void trainWithMissingDataNamesIt() {
    String missing = tmp.resolve("no-images-idx3-ubyte").toString();
    assertOneLineExitTwo(trainWith(solver, missing, "--format", "idx"), missing);
  }

  @Test
  void trainWithoutALabelsFileNamesTheFileItLookedFor() throws Exception {
    Files.delete(data.resolve("train-labels-idx1-ubyte"));
    Result r = trainWith(solver, train(), "--format", "idx");
    assertOneLineExitTwo(r, data.resolve("train-labels-idx1-ubyte").toString());
    assertTrue(r.err().contains("--train-labels"), r.toString());
  }

  @Test
  void unsupportedFormatsSayWhichOnesThisBuildReads() {
    Result r = trainWith(solver, train(), "--format", "tiff");
    assertOneLineExitTwo(r, "supported formats: idx, cifar, cifar100, images, parquet");
  }

  @Test
  void aSolverWhoseNetCannotBeFoundNamesBothPlacesLooked() throws Exception {
    Path lonely = tmp.resolve("lonely");
    Files.createDirectories(lonely);
    Path s = Files.copy(solver, lonely.resolve("lenet_solver.prototxt"));
    Result r = trainWith(s, train(), "--format", "idx");
    assertOneLineExitTwo(r, lonely.resolve("examples/mnist/lenet_train_test.prototxt").toString());
    assertTrue(r.err().contains("--net"), r.toString());
  }

  @Test
  void easgdNeedsAlpha() {
    Result r = trainWith(solver, train(), "--averaging", "easgd");
    assertOneLineExitTwo(r, "--alpha");
  }

  @Test
  void testWithMissingWeightsNamesThem() {
    Path missing = tmp.resolve("none.caffemodel");
    Result r =
        CliFixtures.run(
            "test",
            "--solver",
            solver.toString(),
            "--weights",
            missing.toString(),
            "--test",
            test(),
            "--format",
            "idx");
    assertOneLineExitTwo(r, missing.toString());
  }

  @Test
  void predictWithMissingInputNamesIt() throws Exception {
    Path weights = Files.createFile(tmp.resolve("w.caffemodel"));
    String missing = tmp.resolve("gone-images-idx3-ubyte").toString();
    Result r =
        CliFixtures.run(
            "predict",
            "--solver",
            solver.toString(),
            "--weights",
            weights.toString(),
            "--input",
            missing,
            "--format",
            "idx",
            "--output",
            tmp.resolve("out").toString());
    assertOneLineExitTwo(r, missing);
  }

  @Test
  void predictRefusesAnOutputThatExists() throws Exception {
    Path weights = Files.createFile(tmp.resolve("w.caffemodel"));
    Path out = Files.createDirectories(tmp.resolve("out"));
    Files.createFile(out.resolve("part-0"));
    Result r =
        CliFixtures.run(
            "predict",
            "--net",
            solver.resolveSibling("examples/mnist/lenet_train_test.prototxt").toString(),
            "--weights",
            weights.toString(),
            "--input",
            test(),
            "--output",
            out.toString());
    assertOneLineExitTwo(r, out.toString());
  }

  /**
   * The options of compressed averaging and adaptive tau are checked before Spark starts, each
   * error naming its option. Dropping the check that --tau-max comes only with --tau auto let
   * "--tau 5 --tau-max 100" start training (seen red).
   */
  @Test
  void compressionAndAdaptiveTauOptionsAreChecked() {
    assertOneLineExitTwo(
        trainWith(solver, train(), "--compress", "int8"),
        "--compress must be none, fp16 or bf16 but was 'int8'");
    assertOneLineExitTwo(
        trainTau("fast"), "--tau must be a number of steps or 'auto' but was 'fast'");
    assertOneLineExitTwo(
        trainTau("auto", "--max-overhead", "150"),
        "--max-overhead must be a percentage between 0 and 100 (e.g. 5) but was '150'");
    assertOneLineExitTwo(
        trainWith(solver, train(), "--tau-max", "100"),
        "--max-overhead and --tau-max apply only to --tau auto (got --tau 5)");
    assertOneLineExitTwo(
        trainTau("auto", "--deterministic"), "--deterministic needs --tau STEPS; --tau auto");
    assertOneLineExitTwo(trainTau("auto", "--tau-max", "0"), "tauMax must be > 0 but was 0");
  }

  /**
   * The asynchronous modes' options are checked before Spark starts (exit 2): --deterministic is
   * refused with them (the order of the pushes depends on timing), --staleness only with them,
   * easgd-async needs --alpha. Without the CLI's own check the run was refused one layer down, by
   * TrainerConfig, with the API's wording ("expected '--deterministic cannot be combined with
   * --averaging downpour' in: sparknet: error: Deterministic training cannot use asynchronous
   * averaging (downpour(staleness=32)) ..."): the option names are the CLI's to give.
   */
  @Test
  void asynchronousAveragingOptionsAreChecked() {
    assertOneLineExitTwo(
        trainTau("5", "--averaging", "downpour", "--deterministic"),
        "--deterministic cannot be combined with --averaging downpour");
    assertOneLineExitTwo(
        trainTau("5", "--averaging", "easgd-async", "--alpha", "0.5", "--deterministic"),
        "--deterministic cannot be combined with --averaging easgd-async");
    assertOneLineExitTwo(
        trainTau("5", "--averaging", "easgd-async"),
        "--averaging easgd-async needs --alpha A (0 <= A <= 1)");
    assertOneLineExitTwo(
        trainTau("5", "--staleness", "4"),
        "--staleness applies only to --averaging downpour or easgd-async");
    assertOneLineExitTwo(
        trainTau("5", "--averaging", "downpour", "--staleness", "-1"),
        "The staleness bound must be >= 0 but was -1");
    assertOneLineExitTwo(
        trainTau("5", "--averaging", "hogwild"),
        "--averaging must be plain, easgd, allreduce, downpour or easgd-async but was 'hogwild'");
  }

  private Result trainTau(String tau, String... more) {
    return train(solver, train(), tau, more);
  }

  private Result trainWith(Path solverFile, String trainImages, String... more) {
    return train(solverFile, trainImages, "5", more);
  }

  private Result train(Path solverFile, String trainImages, String tau, String... more) {
    String[] base = {
      "train",
      "--solver",
      solverFile.toString(),
      "--train",
      trainImages,
      "--test",
      test(),
      "--workers",
      "2",
      "--tau",
      tau,
      "--rounds",
      "1",
      "--output",
      tmp.resolve("out").toString()
    };
    String[] args = new String[base.length + more.length];
    System.arraycopy(base, 0, args, 0, base.length);
    System.arraycopy(more, 0, args, base.length, more.length);
    return CliFixtures.run(args);
  }

  /**
   * convert checks --sample-shape before it opens the data or starts Spark, as export and train do.
   * A build without the check went on to the data ("--input file:/.../absent.parquet does not
   * exist" here), and on real Parquet data failed only after reading it, with "A Datum's shape must
   * be positive but was 0x28x28", naming no option.
   */
  @Test
  void convertRefusesANonPositiveSampleShapeFirst() {
    Result r =
        CliFixtures.run(
            "convert",
            "--input",
            tmp.resolve("absent.parquet").toString(),
            "--format",
            "parquet",
            "--sample-shape",
            "0,28,28",
            "--to",
            "lmdb",
            "--output",
            tmp.resolve("out.lmdb").toString());
    assertOneLineExitTwo(r, "--sample-shape must be positive extents like 1,28,28 but was [0, 28");
  }

  private static void assertOneLineExitTwo(Result r, String mustContain) {
    assertEquals(2, r.exit(), r.toString());
    String e = r.err().strip();
    assertEquals(1, e.lines().count(), r.toString());
    assertTrue(e.contains(mustContain), "expected '" + mustContain + "' in: " + e);
  }
}
