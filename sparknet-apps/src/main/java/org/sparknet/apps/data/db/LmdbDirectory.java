package org.sparknet.apps.data.db;

import java.util.List;
import org.sparknet.api.storage.StoragePath;

/**
 * Where an LMDB's data file is: {@code data.mdb} in the directory given, or the file given itself
 * (an LMDB written with MDB_NOSUBDIR, or a path to data.mdb), and the name messages give it.
 *
 * @param location the path as the user gave it, qualified
 * @param dataFile the file holding the pages
 */
record LmdbDirectory(String location, StoragePath dataFile) {
  static final String DATA_FILE = "data.mdb";

  static LmdbDirectory locate(StoragePath path) {
    if (!path.exists()) {
      throw new IllegalArgumentException("LMDB " + path + " does not exist");
    }
    if (!path.isDirectory()) {
      return new LmdbDirectory(path.toString(), path);
    }
    StoragePath data = path.resolve(DATA_FILE);
    if (!data.isFile()) {
      throw new IllegalArgumentException(path + " is not an LMDB: no " + DATA_FILE + advice(path));
    }
    return new LmdbDirectory(path.toString(), data);
  }

  /** What the directory looks like instead, and what to do. */
  private static String advice(StoragePath dir) {
    List<String> names = dir.list().stream().map(StoragePath::name).toList();
    if (names.contains("CURRENT") && names.stream().anyMatch(n -> n.startsWith("MANIFEST-"))) {
      return "; it looks like a LevelDB (CURRENT, MANIFEST-*); use --format leveldb";
    }
    return "; give the directory that Caffe's convert_imageset or convert_mnist_data wrote (it"
        + " holds data.mdb and lock.mdb), or data.mdb itself";
  }
}
