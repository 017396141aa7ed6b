package org.sparknet.apps.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.SolverState;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.device.TaskDevices;
import org.sparknet.caffe.CaffeModels;
import org.sparknet.caffe.CaffeNet;

/**
 * Writes {@code PREFIX_iter_N.caffemodel} and {@code PREFIX_iter_N.solverstate} as {@code caffe
 * train} names them, from the driver's averaged weights at iteration N (solver steps per worker).
 * The solver state carries the iteration, so the learning-rate policy resumes where the run was;
 * its history (momentum) is zero, since each worker keeps its own and only weights are averaged.
 */
final class Snapshots {
  private final NetDefinition def;
  private final SolverSettings settings;
  private final PrintStream out;
  private long lastIteration = -1;

  Snapshots(NetDefinition def, SolverSettings settings, PrintStream out) {
    this.def = def;
    this.settings = settings;
    this.out = out;
  }

  /** Whether a snapshot of {@code iteration} was written already. */
  boolean has(long iteration) {
    return iteration == lastIteration;
  }

  void write(WeightCollection weights, long iteration) {
    Path model = settings.snapshotFile(iteration, ".caffemodel");
    Path state = settings.snapshotFile(iteration, ".solverstate");
    try {
      Path dir = model.toAbsolutePath().getParent();
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create the directory of snapshot " + model, e);
    }
    try (CaffeNet caffe = CaffeNet.create(TaskDevices.forDriver(def))) {
      caffe.setWeights(weights);
      caffe.setSolverState(new SolverState(iteration, caffe.getSolverHistory()));
      CaffeModels.saveSnapshot(caffe, model, state);
    }
    lastIteration = iteration;
    out.printf("Snapshot of iteration %d: %s and %s%n", iteration, model, state);
  }
}
