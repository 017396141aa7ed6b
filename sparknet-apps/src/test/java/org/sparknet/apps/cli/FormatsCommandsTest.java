package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;

/**
 * The data formats on the command line, without Spark: --help lists them and their options, and bad
 * names, missing files, truncated CIFAR files, empty class folders and unusable transforms are exit
 * 2 with one line naming the problem, found before Spark or Caffe start.
 */
class FormatsCommandsTest {
  @TempDir Path tmp;
  private Path cifarSolver;
  private Path cifar;
  private Path images;

  @BeforeEach
  void fixtures() throws Exception {
    cifarSolver = CliFixtures.appSolver("cifar10", tmp.resolve("caffe"));
    cifar = CliFixtures.cifarBatch(tmp.resolve("data/data_batch_1.bin"), 0, 20, false);
    images = CliFixtures.imageFolder(tmp.resolve("imgs"), new int[] {1, 2}, 2, 16);
    Files.createFile(tmp.resolve("w.caffemodel")); // never read: the data fails first
  }

  @ParameterizedTest
  @ValueSource(strings = {"train", "test", "predict"})
  void helpListsTheFormatsAndTheirOptions(String command) {
    Result r = CliFixtures.run(command, "--help");
    assertEquals(0, r.exit(), r.toString());
    for (String s :
        List.of(
            "idx",
            "cifar100",
            "images",
            "parquet",
            "--cifar100-label",
            "--image-size",
            "--crop",
            "--mirror",
            "--mean-value",
            "--batch-size",
            "--skip-bad-images",
            "--features-col",
            "--label-col")) {
      assertTrue(r.out().contains(s), command + " --help lacks " + s + ":\n" + r.out());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"train", "test", "predict"})
  void aBadFormatNameIsExitTwoNamingTheAcceptedOnes(String command) {
    Result r = run(command, cifar.toString(), "--format", "tfrecord");
    assertOneLineExitTwo(r, "--format tfrecord is not a supported format");
    assertTrue(
        r.err().contains("idx, cifar, cifar100, images, parquet, lmdb, leveldb"), r.toString());
  }

  @ParameterizedTest
  @ValueSource(strings = {"train", "test", "predict"})
  void aMissingCifarFileIsNamed(String command) {
    String missing = tmp.resolve("data/nope.bin").toString();
    assertOneLineExitTwo(run(command, missing, "--format", "cifar"), missing);
  }

  @ParameterizedTest
  @ValueSource(strings = {"train", "test", "predict"})
  void aMissingImageFolderIsNamed(String command) {
    String missing = tmp.resolve("no-such-folder").toString();
    assertOneLineExitTwo(run(command, missing, "--format", "images"), missing);
  }

  @ParameterizedTest
  @ValueSource(strings = {"train", "test", "predict"})
  void aMissingParquetPathIsNamed(String command) {
    String missing = tmp.resolve("no.parquet").toString();
    assertOneLineExitTwo(run(command, missing, "--format", "parquet"), missing);
  }

  @Test
  void aTruncatedCifarFileIsNamedWithItsSize() throws Exception {
    byte[] all = Files.readAllBytes(cifar);
    Files.write(cifar, Arrays.copyOf(all, all.length - 1));
    Result r = run("train", cifar.toString(), "--format", "cifar", "--mean-value", "1");
    assertOneLineExitTwo(r, cifar.toString());
    assertTrue(r.err().contains("61,459 bytes"), r.toString());
  }

  @Test
  void aCifar100FileReadAsCifar10IsRejected() throws Exception {
    Path c100 = CliFixtures.cifarBatch(tmp.resolve("data/train.bin"), 0, 10, true);
    Result r = run("test", c100.toString(), "--format", "cifar", "--mean-value", "1");
    assertOneLineExitTwo(r, "not a positive multiple of the 3,073-byte CIFAR-10 record");
  }

  @Test
  void anEmptyClassFolderIsNamed() throws Exception {
    Path empty = Files.createDirectories(images.resolve("class_5"));
    Result r = run("train", images.toString(), "--format", "images", "--mean-value", "1");
    assertOneLineExitTwo(r, "Class folder " + StoragePath.of(empty) + " holds no images");
  }

  @Test
  void aMissingMeanFileNamesWhereItWasLookedFor() {
    Result r = run("train", cifar.toString(), "--format", "cifar");
    assertOneLineExitTwo(r, "layer 'cifar' (Data): transform_param.mean_file");
    assertTrue(
        r.err().contains(tmp.resolve("caffe/examples/cifar10/mean.binaryproto").toString()),
        r.toString());
    assertTrue(r.err().contains("--mean-value"), r.toString());
  }

  @Test
  void imageOptionsAreRejectedForIdx() throws Exception {
    Path data = tmp.resolve("idx");
    CliFixtures.fashionMnistSubset(data, 10, 10);
    Path lenet = CliFixtures.caffeLeNet(tmp.resolve("lenet"));
    Result r =
        CliFixtures.run(
            "test",
            "--solver",
            lenet.toString(),
            "--weights",
            tmp.resolve("w.caffemodel").toString(),
            "--test",
            data.resolve("t10k-images-idx3-ubyte").toString(),
            "--crop",
            "24");
    assertOneLineExitTwo(
        r, "--crop and --mirror apply to --format cifar, cifar100, images, lmdb and leveldb");
  }

  @Test
  void aCropLargerThanTheImagesIsRejected() {
    Result r =
        run(
            "train",
            images.toString(),
            "--format",
            "images",
            "--mean-value",
            "1",
            "--image-size",
            "20,20",
            "--crop",
            "24");
    assertOneLineExitTwo(r, "crop_size 24 is larger than the 20x20 images");
  }

  @Test
  void trainAndTestClassFoldersMustMatch() throws Exception {
    Path other = CliFixtures.imageFolder(tmp.resolve("other"), new int[] {1, 3}, 1, 16);
    Result r =
        CliFixtures.run(
            "train",
            "--solver",
            cifarSolver.toString(),
            "--train",
            images.toString(),
            "--test",
            other.toString(),
            "--format",
            "images",
            "--workers",
            "1",
            "--tau",
            "1",
            "--rounds",
            "1",
            "--output",
            tmp.resolve("out").toString());
    assertOneLineExitTwo(
        r, "has the classes [class_1, class_3] but --train has [class_1, class_2]");
  }

  @Test
  void parquetWithAMeanFileIsRejected() throws Exception {
    // Crops and flips are the net's (CaffeNet applies them per batch, also to Parquet rows); a
    // mean image is subtracted by the image loaders only.
    Path caffenet = CliFixtures.appSolver("caffenet", tmp.resolve("caffenet"));
    CliFixtures.meanFile(
        tmp.resolve("caffenet/data/ilsvrc12/imagenet_mean.binaryproto"),
        3,
        256,
        256,
        new float[3 * 256 * 256]);
    Path parquet = Files.createDirectories(tmp.resolve("x.parquet"));
    Result r =
        CliFixtures.run(
            "test",
            "--solver",
            caffenet.toString(),
            "--weights",
            tmp.resolve("w.caffemodel").toString(),
            "--test",
            parquet.toString(),
            "--format",
            "parquet",
            "--sample-shape",
            "3,256,256");
    assertOneLineExitTwo(r, "has a mean_file, which SparkNet does not subtract from parquet data");
  }

  @Test
  void meanValueNeedsADataLayerToReplace() throws Exception {
    Path net =
        CliFixtures.copyResource(
            "/org/sparknet/apps/mnist/lenet.prototxt", tmp.resolve("lenet.prototxt"));
    Result r =
        CliFixtures.run(
            "predict",
            "--net",
            net.toString(),
            "--weights",
            tmp.resolve("w.caffemodel").toString(),
            "--input",
            images.toString(),
            "--format",
            "images",
            "--mean-value",
            "1",
            "--output",
            tmp.resolve("p").toString());
    assertOneLineExitTwo(r, "has no data layer");
  }

  /**
   * {@code command} on {@code data} with the CIFAR-10 quick solver and the other required flags.
   */
  private Result run(String command, String data, String... more) {
    List<String> a = new ArrayList<>(List.of(command, "--solver", cifarSolver.toString()));
    String weights = tmp.resolve("w.caffemodel").toString();
    switch (command) {
      case "train" ->
          a.addAll(
              List.of(
                  "--train",
                  data,
                  "--test",
                  data,
                  "--workers",
                  "1",
                  "--tau",
                  "1",
                  "--rounds",
                  "1",
                  "--output",
                  tmp.resolve("out").toString()));
      case "test" -> a.addAll(List.of("--weights", weights, "--test", data));
      default ->
          a.addAll(
              List.of(
                  "--weights", weights, "--input", data, "--output", tmp.resolve("p").toString()));
    }
    a.addAll(List.of(more));
    return CliFixtures.run(a.toArray(new String[0]));
  }

  private static void assertOneLineExitTwo(Result r, String mustContain) {
    assertEquals(2, r.exit(), r.toString());
    String e = r.err().strip();
    assertEquals(1, e.lines().count(), r.toString());
    assertTrue(e.contains(mustContain), "expected '" + mustContain + "' in: " + e);
  }
}
