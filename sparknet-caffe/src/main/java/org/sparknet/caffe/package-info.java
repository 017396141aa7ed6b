/**
 * The Caffe engine of SparkNet: {@link org.sparknet.caffe.CaffeNet}, the {@link
 * org.sparknet.api.Net} SPI over the JavaCPP Caffe presets, found by {@link
 * org.sparknet.caffe.CaffeNetProvider} through {@link java.util.ServiceLoader}; {@link
 * org.sparknet.caffe.CaffeModels} for Caffe-compatible .caffemodel and .solverstate files; {@link
 * org.sparknet.caffe.CaffeDataLayers} for rewriting the data layers of unchanged Caffe files; and
 * {@link org.sparknet.caffe.PlainCaffeSolver}, a Caffe solver with nothing of SparkNet around it.
 */
package org.sparknet.caffe;
