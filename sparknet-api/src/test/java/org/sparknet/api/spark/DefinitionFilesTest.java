package org.sparknet.api.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Solver and net files read into a stage's params as the CLI reads them: a relative {@code net:}
 * beside the solver, on the solver's file system ({@code file:} URIs and plain paths here). Broken
 * on purpose: resolving the net against the working directory only failed with "names the net file
 * 'lenet.prototxt', which is not at file:/work/.../lenet.prototxt"; ignoring an embedded net_param
 * kept the earlier "net B".
 */
class DefinitionFilesTest {
  @TempDir Path dir;

  private Path write(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
    return p;
  }

  @Test
  void aRelativeNetIsReadBesideTheSolverAndBothTextsAreKept() throws IOException {
    Path solver = write("nets/lenet_solver.prototxt", "net: \"lenet.prototxt\"\nbase_lr: 0.01\n");
    write("nets/lenet.prototxt", "name: \"LeNet\"\n");
    SparkNetClassifier c = new SparkNetClassifier().setSolverFile(solver.toUri().toString());
    assertEquals("net: \"lenet.prototxt\"\nbase_lr: 0.01\n", c.getSolverText());
    assertEquals("name: \"LeNet\"\n", c.getNetText());

    // A plain path works as well, and the stage keeps texts: the files may go.
    SparkNetModel m = new SparkNetModel(new org.sparknet.api.WeightCollection());
    m.setSolverFile(solver.toString());
    Files.delete(solver);
    assertEquals("name: \"LeNet\"\n", m.getNetText());
  }

  @Test
  void setNetFileOverridesTheSolversNetAndAnEmbeddedNetClearsNetText() throws IOException {
    Path solver = write("s.prototxt", "net: \"a.prototxt\"\n");
    write("a.prototxt", "net A");
    Path b = write("b.prototxt", "net B");
    SparkNetEstimator e =
        new SparkNetEstimator().setSolverFile(solver.toString()).setNetFile(b.toUri().toString());
    assertEquals("net B", e.getNetText());

    Path embedded = write("e.prototxt", "base_lr: 0.1\nnet_param { name: \"x\" }\n");
    e.setSolverFile(embedded.toString());
    assertEquals("", e.getNetText(), "the solver carries the net");
  }

  @Test
  void missingFilesAreNamed() throws IOException {
    Path solver = write("s.prototxt", "train_net: \"gone.prototxt\"\n");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new SparkNetClassifier().setSolverFile(solver.toString()));
    assertTrue(
        e.getMessage().contains("names the net file 'gone.prototxt', which is neither at ")
            && e.getMessage().contains(dir.resolve("gone.prototxt").toString())
            && e.getMessage().contains("setNetFile"),
        e.getMessage());

    String nowhere = dir.resolve("nowhere.prototxt").toString();
    e =
        assertThrows(
            IllegalArgumentException.class, () -> new SparkNetClassifier().setSolverFile(nowhere));
    assertTrue(e.getMessage().startsWith("Solver file "), e.getMessage());
    assertTrue(e.getMessage().endsWith("nowhere.prototxt does not exist"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> new SparkNetClassifier().setNetFile(nowhere));
    assertTrue(e.getMessage().startsWith("Net file "), e.getMessage());
  }

  /**
   * A solver's test_net files reach the stage as the CLI reads them, embedded as test_net_param
   * blocks after the solver's own. The stages' earlier reader kept the test_net line, which the net
   * plan then refused ("the sparknet CLI reads test_net files itself").
   */
  @Test
  void testNetFilesAreEmbeddedInTheSolverText() throws IOException {
    Path solver =
        write(
            "nets/s.prototxt",
            "net: \"train.prototxt\"\ntest_net: \"test.prototxt\"\ntest_iter: 2\n");
    write("nets/train.prototxt", "name: \"train\"\n");
    write("nets/test.prototxt", "name: \"own test net\"\n");
    SparkNetClassifier c = new SparkNetClassifier().setSolverFile(solver.toString());
    String text = c.getSolverText();
    assertTrue(text.contains("test_net_param {\nname: \"own test net\"\n"), text);
    assertTrue(!text.matches("(?ms).*^\\s*test_net\\s*:.*"), text);
    assertEquals("name: \"train\"\n", c.getNetText());
  }
}
