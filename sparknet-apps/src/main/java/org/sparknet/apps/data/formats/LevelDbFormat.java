package org.sparknet.apps.data.formats;

import org.sparknet.apps.data.db.LevelDbStore;

/** Caffe's LevelDB of Datum records ({@code backend: LEVELDB}, Caffe's default backend). */
public final class LevelDbFormat extends DatumStoreFormat {
  private static final long serialVersionUID = 1L;

  public LevelDbFormat() {
    super(
        "leveldb",
        "Caffe's LevelDB of Datum records (a directory with CURRENT and MANIFEST)",
        "LevelDB",
        LevelDbStore::open);
  }
}
