/**
 * Implementation detail of {@link org.sparknet.apps.data.db.LevelDbStore}; NOT API: LevelDB's
 * on-disk format (the manifest's version edits, the log's write batches, tables' blocks and
 * indexes) read in pure Java through Hadoop's file system, and the merge of those sources into the
 * newest live version of each key. Nothing here depends on the package that uses it.
 */
package org.sparknet.apps.data.db.leveldb;
