package org.sparknet.apps.mnist;

import java.util.List;
import org.sparknet.api.NetDefinition;
import org.sparknet.apps.data.ClasspathText;

/** The LeNet definition shipped with the apps: Caffe's MNIST net with Input layers. */
public final class LeNet {
  /** Caffe's batch size for LeNet training (lenet_train_test.prototxt). */
  public static final int TRAIN_BATCH = 64;

  private LeNet() {}

  /**
   * LeNet with Caffe's lenet_solver settings, except the base learning rate: 0.03 instead of 0.01,
   * because model averaging over W workers takes W times fewer averaged steps per epoch (see
   * BENCHMARKS.md for the accuracy measured with both).
   */
  public static NetDefinition definition(long seed, double baseLr) {
    String solver =
        resource("lenet_solver.prototxt")
            .replaceFirst("(?m)^base_lr: .*$", "base_lr: " + baseLr)
            .replaceFirst("(?m)^random_seed: .*$", "random_seed: " + seed);
    return new NetDefinition(
        "caffe", solver, resource("lenet.prototxt"), List.of(1, 28, 28), seed, "cpu");
  }

  static String resource(String name) {
    return ClasspathText.read(
        LeNet.class, name, "Resource " + name + " is missing from the sparknet-apps jar");
  }
}
