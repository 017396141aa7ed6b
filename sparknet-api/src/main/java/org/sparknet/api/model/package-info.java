/**
 * The trained net as users hold it: {@link org.sparknet.api.model.Model} (definition and weights:
 * save, load, predict through a {@link org.sparknet.api.model.Predictor} that owns its net, export
 * to ONNX), and {@link org.sparknet.api.model.ModelStore}, the one place where weights files and
 * model directories are written and read, on any Hadoop file system, for models, the trainer, the
 * Spark ML stages and the CLI.
 */
package org.sparknet.api.model;
