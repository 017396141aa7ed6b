/**
 * Caffe's record databases (LMDB, LevelDB) read in pure Java from any Hadoop file system: {@link
 * org.sparknet.apps.data.db.RecordStore} and its key ranges.
 */
package org.sparknet.apps.data.db;
