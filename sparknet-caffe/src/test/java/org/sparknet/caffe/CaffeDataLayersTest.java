package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.storage.StoragePath;

/**
 * The text rewrites of the zoo nets' data layers, without Caffe's natives.
 *
 * <p>Mutations seen to fail here: {@code rewrite} leaving mean_file in the net (the second test's
 * {@code assertFalse(flat.contains("mean_file"))} failed), and {@code locate} resolving against the
 * working directory instead of the base directories (the second test errored, the mean file not
 * found; the third's message named only the working directory).
 */
class CaffeDataLayersTest {

  @Test
  void zooDataLayersBecomeInputLayersOfTheAskedBatch() {
    String net =
        CaffeDataLayers.toInputLayers(Zoo.text("caffenet_train_val.prototxt"), 3, 227, 2, 3);
    assertFalse(net.contains("\"Data\""), net);
    assertFalse(net.contains("mean_file"), "the transform goes with the Data layer");
    String flat = net.replaceAll("\\s+", " ");
    assertTrue(
        flat.contains(
            "phase: TRAIN } input_param { shape { dim: 2 dim: 3 dim: 227 dim: 227 } shape { dim: 2 }"),
        flat);
    assertTrue(
        flat.contains(
            "phase: TEST } input_param { shape { dim: 3 dim: 3 dim: 227 dim: 227 } shape { dim: 3 }"),
        flat);
    assertTrue(net.contains("\"fc8\""), "the rest of the net is kept");
  }

  @Test
  void theMeanFileIsLocatedAndTakenOutCropStaysAndOverridesApply(@TempDir Path dir)
      throws IOException {
    Path mean = dir.resolve("data/ilsvrc12/imagenet_mean.binaryproto");
    Files.createDirectories(mean.getParent());
    Files.write(mean, new byte[0]);
    CaffeDataLayers.Rewritten r =
        CaffeDataLayers.rewrite(
            Zoo.text("caffenet_solver.prototxt"),
            Zoo.text("caffenet_train_val.prototxt"),
            "caffenet_train_val.prototxt",
            new CaffeDataLayers.Overrides(
                null,
                false,
                null,
                5,
                List.of(StoragePath.of(dir.resolve("x")), StoragePath.of(dir))));
    assertEquals(StoragePath.of(mean), r.meanFile());
    assertEquals(227, r.cropSize());
    assertNull(r.inputShape(), "the zoo net has no Input layer");
    String flat = r.netText().replaceAll("\\s+", " ");
    assertFalse(flat.contains("mean_file"), flat);
    assertFalse(flat.contains("mirror"), "--mirror false turns flips off in both phases");
    assertEquals(2, flat.split("crop_size: 227", -1).length - 1, flat);
    assertEquals(2, flat.split("batch_size: 5 ", -1).length - 1, flat);
    assertEquals(Zoo.text("caffenet_solver.prototxt"), r.solverText());
  }

  @Test
  void aMeanFileThatIsNowhereIsNamedWithTheLayerAndThePlacesTried(@TempDir Path dir) {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                CaffeDataLayers.rewrite(
                    Zoo.text("cifar10_quick_solver.prototxt"),
                    Zoo.text("cifar10_quick_train_test.prototxt"),
                    "cifar10_quick_train_test.prototxt",
                    new CaffeDataLayers.Overrides(
                        null, null, null, null, List.of(StoragePath.of(dir)))));
    assertTrue(
        e.getMessage().startsWith("cifar10_quick_train_test.prototxt, layer 'cifar'"),
        e.getMessage());
    assertTrue(
        e.getMessage().contains(dir.resolve("examples/cifar10/mean.binaryproto").toString()),
        e.getMessage());
  }
}
