package org.sparknet.apps.data.formats;

import org.sparknet.apps.data.db.LmdbStore;

/** Caffe's LMDB of Datum records ({@code backend: LMDB}): a directory holding data.mdb. */
public final class LmdbFormat extends DatumStoreFormat {
  private static final long serialVersionUID = 1L;

  public LmdbFormat() {
    super(
        "lmdb",
        "Caffe's LMDB of Datum records (a directory with data.mdb)",
        "LMDB",
        LmdbStore::open);
  }
}
