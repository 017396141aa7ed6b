/**
 * Models on storage: {@link org.sparknet.api.model.ModelStore} is the one place where weights files
 * and model directories are written and read, on any Hadoop file system, for the trainer, the Spark
 * ML stages and the CLI.
 */
package org.sparknet.api.model;
