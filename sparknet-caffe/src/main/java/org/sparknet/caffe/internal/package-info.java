/**
 * Implementation detail of {@code sparknet-caffe}; NOT API. Classes here may change or disappear in
 * any release: a Java reader and printer for protobuf text format, validation of Caffe definitions
 * against Caffe's own descriptors, the rewriting of data layers into {@code Input} layers, native
 * runtime set-up.
 */
package org.sparknet.caffe.internal;
