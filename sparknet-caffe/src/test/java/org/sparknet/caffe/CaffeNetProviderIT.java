package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.Phase;
import org.sparknet.api.WeightCollection;

/** The engine hooks that Spark ML stages use: weights files, the scores blob, the batch size. */
class CaffeNetProviderIT {
  private final NetProvider caffe = NetProvider.forEngine("caffe");

  @Test
  void weightsRoundTripThroughACaffemodel(@TempDir Path dir) {
    NetDefinition def = TinyNets.definition().withSeed(5);
    WeightCollection w;
    try (CaffeNet net = CaffeNet.create(def)) {
      net.train(3, TinyNets.quadrants(1));
      w = net.getWeights();
    }
    byte[] bytes = caffe.encodeWeights(def, w);
    assertEquals("weights.caffemodel", caffe.weightsFileName());
    assertNull(caffe.decodeWeights(def, bytes, "bytes").differenceFrom(w, 0, 0));

    // The bytes are a .caffemodel that CaffeModels (and so Caffe's tools) read.
    Path file = dir.resolve("w.caffemodel");
    try (CaffeNet other = CaffeNet.create(def.withSeed(6), false)) {
      Files.write(file, bytes);
      CaffeModels.load(other, file);
      assertNull(other.getWeights().differenceFrom(w, 0, 0));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }

    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> caffe.decodeWeights(def, new byte[] {1, 2, 3}, "model/weights.caffemodel"));
    assertTrue(e.getMessage().contains("model/weights.caffemodel"), e.getMessage());
  }

  @Test
  void scoresBlobIsWhatTheLossReads() {
    assertEquals("ip", caffe.defaultScoresBlob(TinyNets.definition()));
    String withSoftmax =
        TinyNets.net("soft", null)
            .replace(
                "layer { name: \"loss\"",
                "layer { name: \"prob\" type: \"Softmax\" bottom: \"ip\" top: \"prob\"\n"
                    + "  include { phase: TEST } }\nlayer { name: \"loss\"");
    assertEquals(
        "ip", caffe.defaultScoresBlob(NetDefinition.caffe(TinyNets.SOLVER, withSoftmax, null)));
  }

  @Test
  void batchSizeIsSetInEveryInputOfBothPhases() {
    String twoPhases =
        TinyNets.net("phases", null)
            .replace(
                "layer { name: \"in\" type: \"Input\" top: \"data\" top: \"label\"\n"
                    + "  input_param { shape { dim: 8 dim: 1 dim: 6 dim: 6 } shape { dim: 8 } } }",
                "layer { name: \"in\" type: \"Input\" top: \"data\" top: \"label\""
                    + " include { phase: TRAIN }\n"
                    + "  input_param { shape { dim: 8 dim: 1 dim: 6 dim: 6 } shape { dim: 8 } } }\n"
                    + "layer { name: \"in\" type: \"Input\" top: \"data\" top: \"label\""
                    + " include { phase: TEST }\n"
                    + "  input_param { shape { dim: 20 dim: 1 dim: 6 dim: 6 } shape { dim: 20 } }"
                    + " }");
    NetDefinition def =
        caffe.withBatchSize(NetDefinition.caffe(TinyNets.SOLVER, twoPhases, null), 3);
    // Valid rewrites of a valid net: no dry run needed (it would only cost a child JVM each).
    try (CaffeNet net = CaffeNet.create(def, false)) {
      assertArrayEquals(new long[] {3, 1, 6, 6}, dims(net, Phase.TRAIN, "data"));
      assertArrayEquals(new long[] {3}, dims(net, Phase.TRAIN, "label"));
      assertArrayEquals(new long[] {3, 1, 6, 6}, dims(net, Phase.TEST, "data"));
    }

    // A Data layer inside the solver's net_param: its batch_size.
    String dataLayer =
        "net_param { name: \"d\"\n"
            + "  layer { name: \"in\" type: \"Data\" top: \"data\" top: \"label\""
            + " data_param { source: \"x\" batch_size: 64 backend: LMDB } }\n"
            + "  layer { name: \"ip\" type: \"InnerProduct\" bottom: \"data\" top: \"ip\""
            + " inner_product_param { num_output: 2 } }\n"
            + "  layer { name: \"loss\" type: \"SoftmaxWithLoss\" bottom: \"ip\" bottom: \"label\""
            + " top: \"loss\" } }\n"
            + TinyNets.SOLVER;
    NetDefinition embedded =
        caffe.withBatchSize(
            new NetDefinition("caffe", dataLayer, null, List.of(1, 6, 6), 0, "cpu"), 5);
    try (CaffeNet net = CaffeNet.create(embedded, false)) {
      assertArrayEquals(new long[] {5, 1, 6, 6}, dims(net, Phase.TRAIN, "data"));
    }

    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                caffe.withBatchSize(
                    NetDefinition.caffe(TinyNets.SOLVER, "name: \"empty\"\n", null), 3));
    assertTrue(e.getMessage().contains("no Input or data layer"), e.getMessage());
  }

  @Test
  void baseLearningRateIsSetInTheSolver() {
    NetDefinition def = caffe.withBaseLearningRate(TinyNets.definition(), 0.125);
    assertTrue(def.solverText().contains("base_lr: 0.125"), def.solverText());
    assertTrue(def.solverText().contains("momentum: 0.9"), def.solverText());
    assertEquals(1, def.solverText().split("base_lr").length - 1, def.solverText());
    assertThrows(IllegalArgumentException.class, () -> caffe.withBaseLearningRate(def, 0));
  }

  private static long[] dims(CaffeNet net, Phase phase, String blob) {
    var s = net.inputShapes(phase).get(blob);
    long[] d = new long[s.rank()];
    for (int i = 0; i < d.length; i++) {
      d[i] = s.dim(i);
    }
    return d;
  }
}
