/**
 * Engine {@code "rbm"}: a Restricted Boltzmann Machine with binary visible units and binary (or
 * linear Gaussian) hidden units, trained by contrastive divergence (CD-k) with SGD, momentum and
 * weight decay, behind SparkNet's {@link org.sparknet.api.Net} SPI, so that {@code SparkNetTrainer}
 * averages it like any Caffe net. Defined by {@link org.sparknet.rbm.RbmConfig}.
 */
package org.sparknet.rbm;
