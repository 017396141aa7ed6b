/**
 * SINGA's dimensionality-reduction example (Hinton and Salakhutdinov 2006) on SparkNet: greedy
 * layer-wise pre-training of a deep auto-encoder with RBMs (engine "rbm"), each trained distributed
 * by {@code SparkNetTrainer}, then the unrolled auto-encoder fine-tuned by back-propagation in
 * Caffe, also distributed; compared with 2-component PCA, with the figures of SINGA's Figure 16
 * (first-layer filters, 2-D codes by class).
 */
package org.sparknet.apps.autoencoder;
