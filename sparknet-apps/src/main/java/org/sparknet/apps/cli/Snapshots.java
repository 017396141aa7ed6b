package org.sparknet.apps.cli;

import java.io.PrintStream;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.SolverState;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.device.TaskDevices;
import org.sparknet.api.storage.StoragePath;
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
    StoragePath model = settings.snapshotFile(iteration, ".caffemodel");
    StoragePath state = settings.snapshotFile(iteration, ".solverstate");
    model.parent().mkdirs();
    try (CaffeNet caffe = CaffeNet.create(TaskDevices.forDriver(def))) {
      caffe.setWeights(weights);
      caffe.setSolverState(new SolverState(iteration, caffe.getSolverHistory()));
      // Caffe opens learned_net as a local path, so a local snapshot names its weights as one.
      String name =
          "file".equals(model.toUri().getScheme()) ? model.toUri().getPath() : model.toString();
      CaffeModels.Snapshot files = CaffeModels.snapshot(caffe, name);
      // Each file is written under a temporary name and renamed, the weights first: the state
      // names them, so a state that exists always finds its weights.
      model.write(files.caffemodel(), false);
      state.write(files.solverstate(), false);
    }
    lastIteration = iteration;
    out.printf("Snapshot of iteration %d: %s and %s%n", iteration, model, state);
  }
}
