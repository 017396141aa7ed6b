/**
 * SparkNet as Spark ML pipeline stages: {@link org.sparknet.api.spark.SparkNetClassifier} and its
 * {@link org.sparknet.api.spark.SparkNetClassificationModel} (prediction, probability and raw score
 * columns, as Spark's classifiers write them), and the general {@link
 * org.sparknet.api.spark.SparkNetEstimator} and {@link org.sparknet.api.spark.SparkNetModel} (any
 * blob as an array column: regression, feature extraction). {@code fit} runs the distributed loop
 * of {@link org.sparknet.api.train.SparkNetTrainer}; {@code transform} runs batched inference on
 * the executors. All four save and load (weights in the engine's file format: a Caffe {@code
 * .caffemodel}).
 */
package org.sparknet.api.spark;
