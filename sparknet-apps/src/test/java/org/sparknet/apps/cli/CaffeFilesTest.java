package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A solver's test_net files are read beside the solver and embedded as test_net_param blocks after
 * the solver's own, Caffe's order of test nets. Broken on purpose (the blocks put where the
 * test_net lines were), the order check failed: net 'b' came before net 'own'.
 */
class CaffeFilesTest {
  @TempDir Path tmp;

  @Test
  void testNetFilesAreEmbeddedAfterTheSolversOwnTestNets() throws Exception {
    Files.writeString(tmp.resolve("train.prototxt"), "name: \"train\"\n");
    Files.writeString(tmp.resolve("a.prototxt"), "name: \"a\"\n");
    Files.createDirectories(tmp.resolve("sub"));
    Files.writeString(tmp.resolve("sub/b.prototxt"), "name: \"b\"\n");
    Path solver = tmp.resolve("solver.prototxt");
    Files.writeString(
        solver,
        "train_net: \"train.prototxt\"\ntest_net: \"sub/b.prototxt\"\n"
            + "test_net_param { name: \"own\" }\ntest_net: 'a.prototxt'\ntest_iter: 1\n"
            + "test_iter: 2\ntest_iter: 3\nbase_lr: 0.1\n");
    CaffeFiles f = CaffeFiles.read(solver, null);
    String s = f.solverText();
    assertEquals("name: \"train\"\n", f.netText());
    assertFalse(s.contains("\ntest_net:"), s);
    int own = s.indexOf("name: \"own\"");
    int b = s.indexOf("name: \"b\"");
    int a = s.indexOf("name: \"a\"");
    assertTrue(own >= 0 && own < b && b < a, s);
    assertTrue(s.contains("test_net_param {\nname: \"b\"\n\n}"), s);
  }

  @Test
  void aMissingTestNetFileIsNamed() throws Exception {
    Files.writeString(tmp.resolve("net.prototxt"), "name: \"n\"\n");
    Path solver = tmp.resolve("solver.prototxt");
    Files.writeString(solver, "net: \"net.prototxt\"\ntest_net: \"gone.prototxt\"\n");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> CaffeFiles.read(solver, null));
    assertTrue(
        e.getMessage().contains("names the test net file 'gone.prototxt', which is neither at"),
        e.getMessage());
  }
}
