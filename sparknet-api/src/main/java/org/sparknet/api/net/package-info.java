/**
 * The Java net builder: {@link org.sparknet.api.net.NetSpec} (layers) and {@link
 * org.sparknet.api.net.SolverSpec} (the solver), written as Caffe prototxt text and turned into a
 * {@link org.sparknet.api.NetDefinition}. No Caffe classes: the text is checked by the engine like
 * any user prototxt.
 */
package org.sparknet.api.net;
