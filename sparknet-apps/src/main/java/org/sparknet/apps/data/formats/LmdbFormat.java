package org.sparknet.apps.data.formats;

import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.db.LmdbStore;
import org.sparknet.apps.data.db.RecordStore;

/** Caffe's LMDB of Datum records ({@code backend: LMDB}): a directory holding data.mdb. */
public final class LmdbFormat extends DatumStoreFormat {
  private static final long serialVersionUID = 1L;

  @Override
  public String name() {
    return "lmdb";
  }

  @Override
  public String description() {
    return "Caffe's LMDB of Datum records (a directory with data.mdb)";
  }

  @Override
  String kindName() {
    return "LMDB";
  }

  @Override
  RecordStore openStore(StoragePath location) {
    return LmdbStore.open(location);
  }
}
