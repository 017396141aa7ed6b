package org.sparknet.api;

/** The two phases of a Caffe-style net: training (with a solver) and testing (shared weights). */
public enum Phase {
  TRAIN,
  TEST
}
