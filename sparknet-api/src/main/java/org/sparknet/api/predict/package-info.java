/**
 * Batched inference, engine-level and without Spark: {@link
 * org.sparknet.api.predict.BatchPredictor} runs a net's TEST phase over examples in batches of its
 * batch size. It is the one inference loop behind {@code SparkNetTrainer.test()}, the Spark ML
 * models' {@code transform} and the CLI's {@code test} and {@code predict}.
 */
package org.sparknet.api.predict;
