package org.sparknet.api.internal.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.SolverState;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.internal.wire.WeightLayout;
import org.sparknet.ndarray.Shape;

class CheckpointTest {

  @Test
  void roundTripsAndKeepsTheNewestTwo(@TempDir Path dir) throws Exception {
    Configuration conf = new Configuration();
    String d = dir.resolve("ckpt").toUri().toString();
    CheckpointDir cd = new CheckpointDir(d, conf);
    assertNull(cd.readLatest());
    WeightCollection wc =
        new WeightCollection()
            .put(
                "conv",
                List.of(
                    new WeightCollection.Tensor(Shape.of(2, 3), new float[] {1, 2, 3, 4, 5, 6}),
                    new WeightCollection.Tensor(Shape.of(2), new float[] {-1, Float.MIN_VALUE})))
            .put("fc", List.of(new WeightCollection.Tensor(Shape.of(1), new float[] {7})));
    WeightLayout layout = WeightLayout.of(wc);
    for (int r = 1; r <= 4; r++) {
      float[] w = layout.flatten(wc);
      w[0] = r;
      cd.write(
          new Checkpoint("e:abc", r, 10L * r, 99, new long[] {r, 2L * r}, layout, w, null, null));
    }
    Checkpoint c = cd.readLatest();
    assertEquals(4, c.round());
    assertEquals(40, c.iteration());
    assertEquals(99, c.seed());
    assertEquals("e:abc", c.fingerprint());
    assertArrayEquals(new long[] {4, 8}, c.positions());
    assertEquals(layout, c.layout());
    float[] expected = layout.flatten(wc);
    expected[0] = 4;
    assertArrayEquals(expected, c.weights());
    try (Stream<Path> files = Files.list(dir.resolve("ckpt"))) {
      assertEquals(
          List.of("round-000003.ckpt", "round-000004.ckpt"),
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> n.endsWith(".ckpt"))
              .sorted()
              .toList());
    }
    assertEquals(
        "round-000004.ckpt",
        Files.readString(dir.resolve("ckpt/LATEST")).trim(),
        "the manifest names the newest checkpoint");
    // A newest checkpoint cut short (the manifest still names it) falls back to the previous one.
    Path newest = dir.resolve("ckpt/round-000004.ckpt");
    byte[] bytes = Files.readAllBytes(newest);
    rewrite(dir, newest, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    assertEquals(3, cd.readLatest().round());
    assertNull(cd.readLatest().solverStates());
    // So does one of full length whose contents changed: its CRC no longer matches. (Without the
    // CRC check, this checkpoint of round 4 read back with a wrong weight.)
    byte[] flipped = bytes.clone();
    flipped[flipped.length - 20] ^= 0x40;
    rewrite(dir, newest, flipped);
    assertEquals(3, cd.readLatest().round());
    rewrite(dir, newest, bytes);
    assertEquals(4, cd.readLatest().round());
  }

  /** Replaces a checkpoint's bytes behind Hadoop's back. */
  private static void rewrite(Path dir, Path file, byte[] bytes) throws Exception {
    Files.delete(file);
    Files.write(file, bytes);
  }

  @Test
  void solverStatesRoundTripWithAPartitionThatHasNone(@TempDir Path dir) throws Exception {
    Configuration conf = new Configuration();
    String d = dir.resolve("ckpt").toUri().toString();
    WeightCollection w =
        new WeightCollection()
            .put("fc", List.of(new WeightCollection.Tensor(Shape.of(3), new float[] {1, 2, 3})));
    WeightCollection history =
        new WeightCollection()
            .put("fc", List.of(new WeightCollection.Tensor(Shape.of(3), new float[] {-1, 0, 5})))
            .put("fc#1", List.of(new WeightCollection.Tensor(Shape.of(3), new float[] {9, 8, 7})));
    WeightLayout layout = WeightLayout.of(w);
    SolverState[] states = {new SolverState(42, history), null};
    float[][] workers = {{4, 5, 6}, null};
    CheckpointDir cd = new CheckpointDir(d, conf);
    cd.write(
        new Checkpoint(
            "e:x", 7, 42, 1, new long[] {5, 0}, layout, layout.flatten(w), states, workers));
    Checkpoint c = cd.readLatest();
    assertArrayEquals(workers[0], c.workerWeights()[0]);
    assertNull(c.workerWeights()[1]);
    assertEquals(2, c.solverStates().length);
    assertNull(c.solverStates()[1]);
    assertEquals(42, c.solverStates()[0].iteration());
    assertNull(history.differenceFrom(c.solverStates()[0].history(), 0, 0));
    assertEquals(List.of("fc", "fc#1"), c.solverStates()[0].history().layerNames());
  }
}
