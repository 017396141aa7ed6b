package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;
import org.sparknet.apps.testing.PythonScript;

/**
 * Caffe's file-list data layers through the CLI: a LeNet whose data layers are HDF5Data trains,
 * without --train, on the .h5 files (written by python3-h5py) that its layers' list files name; an
 * image list trains as --format imagelist; a list naming an .h5 file without a 'data' dataset, or a
 * missing image, is exit 2 with one line naming the file.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CaffeListDataIT {
  private Path tmp;
  private Path solver;

  @BeforeAll
  void writeData(@TempDir Path dir) throws Exception {
    tmp = dir;
    Path h5 = Files.createDirectories(tmp.resolve("h5"));
    PythonScript.run(
        "/caffe-data/write_hdf5.py",
        h5,
        fashion("train-images-idx3-ubyte.gz"),
        fashion("train-labels-idx1-ubyte.gz"),
        h5.toString());
    Files.writeString(tmp.resolve("train.txt"), h5.resolve("part0.h5") + "\n");
    Files.writeString(tmp.resolve("test.txt"), h5.resolve("part1.h5") + "\n");
    Files.writeString(
        tmp.resolve("bad.txt"), h5.resolve("part0.h5") + "\n" + h5.resolve("nodata.h5") + "\n");
    solver = CliFixtures.caffeLeNet(tmp.resolve("caffe"));
  }

  private static String fashion(String name) {
    return Path.of("/usr/share/datasets/fashion-mnist").resolve(name).toString();
  }

  /** Caffe's LeNet with its two Data layers made HDF5Data layers reading {@code train, test}. */
  private Path hdf5LeNet(String train, String test) throws Exception {
    Path net = tmp.resolve("caffe/examples/mnist/lenet_train_test.prototxt");
    String text = Files.readString(net);
    String[] sources = {train, test};
    StringBuilder out = new StringBuilder();
    int layer = 0;
    for (String block : text.split("(?=\nlayer \\{)")) {
      if (block.contains("type: \"Data\"") && layer < 2) {
        block =
            block
                .replace("type: \"Data\"", "type: \"HDF5Data\"")
                .replaceAll("(?s)\\s*transform_param \\{[^}]*\\}", "")
                .replaceAll(
                    "(?s)data_param \\{[^}]*\\}",
                    "hdf5_data_param { source: \""
                        + tmp.resolve(sources[layer])
                        + "\" batch_size: 50 }");
        layer++;
      }
      out.append(block);
    }
    Path dir = Files.createDirectories(tmp.resolve("h5net-" + train.replace(".txt", "")));
    Path copy = dir.resolve("examples/mnist/lenet_train_test.prototxt");
    Files.createDirectories(copy.getParent());
    Files.writeString(copy, out.toString());
    Path s = dir.resolve("lenet_solver.prototxt");
    Files.copy(solver, s);
    return s;
  }

  private static Result train(Path solver, Path out, String... more) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "train",
                "--solver",
                solver.toString(),
                "--workers",
                "2",
                "--tau",
                "10",
                "--rounds",
                "2",
                "--output",
                out.toString()));
    a.addAll(List.of(more));
    return CliFixtures.run(a.toArray(new String[0]));
  }

  /** A reader that dropped each file's last row gave 299 training examples. */
  @Test
  void hdf5DataLayersTrainOnTheFilesTheirListsName() throws Exception {
    Result r = train(hdf5LeNet("train.txt", "test.txt"), tmp.resolve("h5-run"));
    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().contains("on 300 training / 200 test examples (hdf5"), r.toString());
    assertTrue(r.out().contains("Final test: accuracy"), r.toString());
  }

  @Test
  void anH5FileWithoutDataIsExitTwoNamingIt() throws Exception {
    Result r = train(hdf5LeNet("bad.txt", "test.txt"), tmp.resolve("h5-bad"));
    assertEquals(2, r.exit(), r.toString());
    assertEquals(1, r.err().strip().lines().count(), r.toString());
    assertTrue(r.err().contains("nodata.h5"), r.toString());
  }

  @Test
  void anImageListTrainsAndAMissingImageIsNamed() throws Exception {
    Path images = CliFixtures.imageFolder(tmp.resolve("imgs"), new int[] {0, 1}, 6, 28);
    StringBuilder list = new StringBuilder();
    try (Stream<Path> files = Files.walk(images)) {
      for (Path p : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
        String cls = p.getParent().getFileName().toString().replace("class_", "");
        list.append(p).append(' ').append(cls).append('\n');
      }
    }
    Path good = Files.writeString(tmp.resolve("images.txt"), list.toString());
    String[] opts = {"--format", "imagelist", "--batch-size", "4"};
    List<String> args = new ArrayList<>(List.of("--train", good.toString(), "--test"));
    args.add(good.toString());
    args.addAll(List.of(opts));
    Result r = train(solver, tmp.resolve("list-run"), args.toArray(new String[0]));
    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().contains("on 12 training / 12 test examples (imagelist"), r.toString());

    Path missing =
        Files.writeString(
            tmp.resolve("missing.txt"),
            list.toString() + tmp.resolve("imgs/class_0/gone.png") + " 0\n");
    args.set(1, missing.toString());
    Result bad = train(solver, tmp.resolve("list-bad"), args.toArray(new String[0]));
    assertEquals(2, bad.exit(), bad.toString());
    assertEquals(1, bad.err().strip().lines().count(), bad.toString());
    assertTrue(bad.err().contains("gone.png"), bad.toString());
  }
}
