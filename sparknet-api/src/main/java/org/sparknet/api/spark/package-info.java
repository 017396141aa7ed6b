/**
 * SparkNet as Spark ML pipeline stages: {@link org.sparknet.api.spark.SparkNetClassifier} and its
 * {@link org.sparknet.api.spark.SparkNetClassificationModel} (Spark's probabilistic classifier and
 * model: prediction, probability and raw score columns, {@code numClasses}, {@code thresholds},
 * single-vector predict), and the general {@link org.sparknet.api.spark.SparkNetEstimator} and
 * {@link org.sparknet.api.spark.SparkNetModel} (any blob as an array column: regression, feature
 * extraction). {@code fit} runs the distributed loop of {@link
 * org.sparknet.api.train.SparkNetTrainer}, printing a line per round and calling round listeners,
 * from a net's initial weights or a weights file's layers ({@link
 * org.sparknet.api.spark.TrainingParams}); {@code transform} runs batched inference on the
 * executors. All four save and load (weights in the engine's file format: a Caffe {@code
 * .caffemodel}; the models with their training history), and the models can be made from a net and
 * a trained weights file ({@code fromCaffe}).
 */
package org.sparknet.api.spark;
