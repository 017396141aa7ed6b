package org.sparknet.apps.data.formats;

import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.db.LevelDbStore;
import org.sparknet.apps.data.db.RecordStore;

/** Caffe's LevelDB of Datum records ({@code backend: LEVELDB}, Caffe's default backend). */
public final class LevelDbFormat extends DatumStoreFormat {
  private static final long serialVersionUID = 1L;

  @Override
  public String name() {
    return "leveldb";
  }

  @Override
  public String description() {
    return "Caffe's LevelDB of Datum records (a directory with CURRENT and MANIFEST)";
  }

  @Override
  String kindName() {
    return "LevelDB";
  }

  @Override
  RecordStore openStore(StoragePath location) {
    return LevelDbStore.open(location);
  }
}
