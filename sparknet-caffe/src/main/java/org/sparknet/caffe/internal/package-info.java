/**
 * Implementation detail of {@code sparknet-caffe}; NOT API. Classes here may change or disappear in
 * any release: a Java reader and printer for protobuf text format, validation of Caffe definitions
 * against Caffe's own descriptors, the rewriting of data layers into {@code Input} layers, native
 * runtime set-up, and the parts of a running {@code CaffeNet} (feeding, weights, solver state,
 * model files, the divergence check). Nothing here depends on the module's public package.
 */
package org.sparknet.caffe.internal;
