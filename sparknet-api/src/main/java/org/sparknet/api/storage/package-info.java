/**
 * Files on any Hadoop file system ({@code hdfs:}, {@code s3a:}, {@code file:}, plain paths): {@link
 * org.sparknet.api.storage.StoragePath} is the one place where the CLI, the data loaders and the
 * apps open, list and write them, and where a storage failure becomes a message naming the URI.
 */
package org.sparknet.api.storage;
