package org.sparknet.api.internal.driver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.junit.jupiter.api.Test;
import org.sparknet.testing.spark.LocalSpark;

/** Released broadcasts are destroyed by the time the releaser is closed, in a real local Spark. */
class BroadcastReleaserIT {

  @Test
  void everyReleasedBroadcastIsDestroyedWhenClosedAndLateOnesAtOnce() {
    JavaSparkContext sc = LocalSpark.context();
    List<Broadcast<float[]>> all = new ArrayList<>();
    BroadcastReleaser releaser = new BroadcastReleaser("test releaser");
    for (int i = 0; i < 5; i++) {
      Broadcast<float[]> b = sc.broadcast(new float[] {i, i + 1});
      assertArrayEquals(new float[] {i, i + 1}, b.value());
      all.add(b);
      releaser.release(b);
    }
    releaser.release(null);
    releaser.close();
    for (Broadcast<float[]> b : all) {
      assertThrows(Exception.class, b::value, "destroyed: " + b.id());
    }
    Broadcast<float[]> late = sc.broadcast(new float[] {9});
    releaser.release(late); // after close: destroyed on the caller's thread
    assertThrows(Exception.class, late::value);
  }
}
