/**
 * The Caffe engine of SparkNet: {@link org.sparknet.caffe.CaffeNet}, the {@link
 * org.sparknet.api.Net} SPI over the JavaCPP Caffe presets, found by {@link
 * org.sparknet.caffe.CaffeNetProvider} through {@link java.util.ServiceLoader}, and {@link
 * org.sparknet.caffe.CaffeModels} for Caffe-compatible .caffemodel files.
 */
package org.sparknet.caffe;
