package org.sparknet.apps.data.db;

import java.util.List;
import org.sparknet.api.data.DataFormats;
import org.sparknet.api.data.DataRequest;
import org.sparknet.api.data.DataSource;
import org.sparknet.api.data.SampleHints;
import org.sparknet.api.storage.StoragePath;

/**
 * What a driver does with an LMDB before training, in a JVM of its own: open it as the lmdb format
 * (the first record, for the shape), count it and split it into key ranges. Prints "count N",
 * "shape S" and one "range R" line a range.
 */
public final class LmdbDriverProbe {
  private LmdbDriverProbe() {}

  public static void main(String[] args) {
    DataSource source = DataFormats.named("lmdb").open(DataRequest.of(args[0]));
    System.out.println("count " + source.count());
    System.out.println("shape " + source.sampleShape(SampleHints.NONE));
    try (LmdbStore store = LmdbStore.open(StoragePath.of(args[0]))) {
      List<KeyRange> ranges = store.split(Integer.parseInt(args[1]));
      for (KeyRange r : ranges) {
        System.out.println("range " + r);
      }
    }
  }
}
