package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.caffe.BlobProto;
import org.bytedeco.caffe.FloatBlobSharedVector;
import org.bytedeco.caffe.FloatSGDSolver;
import org.bytedeco.caffe.SolverState;
import org.bytedeco.caffe.global.caffe;
import org.sparknet.api.WeightCollection;
import org.sparknet.ndarray.Shape;

/**
 * A solver's state (iteration and history: SGD's momentum, the adaptive solvers' averages) read and
 * restored in Caffe's own {@code SolverState} format, so that the learning-rate policy carries on
 * from the iteration. Everything given is checked against this solver first; on a mismatch nothing
 * changes. Callers set the thread's Caffe device and a pointer scope.
 */
public final class SolverStates {
  private final FloatSGDSolver solver;
  private final LearnableParams params;
  private final String netName;
  private final String solverType;

  public SolverStates(
      FloatSGDSolver solver, LearnableParams params, String netName, String solverType) {
    this.solver = solver;
    this.params = params;
    this.netName = netName;
    this.solverType = solverType;
  }

  private LearnableParams slots() {
    return params.historySlots(solver.history().size());
  }

  /** The history as a heap copy, keyed {@code layer}, {@code layer#1}, ... */
  public WeightCollection history() {
    FloatBlobSharedVector history = solver.history();
    return params.historySlots(history.size()).read(history);
  }

  /** Copies a history taken by {@link #history()} into this solver. */
  public void setHistory(WeightCollection history) {
    FloatBlobSharedVector h = solver.history();
    params.historySlots(h.size()).write(h, history, "solver history ");
  }

  /** Restores an iteration and a history through Caffe's {@code Solver::Restore}. */
  public void restore(long iteration, WeightCollection history) {
    if (iteration > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "Solver state of iteration " + iteration + " does not fit Caffe's int iteration counter");
    }
    slots().check(history, "solver history ");
    setHistory(history);
    restore(proto((int) iteration));
  }

  /** This solver's state as Caffe's binary SolverState (no learned_net: weights go separately). */
  public byte[] toBytes() {
    return toBytes(null);
  }

  /**
   * This solver's state with {@code learnedNet} (when not null) as its weights file, as Caffe's own
   * snapshots name it: {@code caffe train --snapshot} loads the weights from that path.
   */
  public byte[] toBytes(String learnedNet) {
    SolverState proto = proto(solver.iter());
    if (learnedNet != null) {
      proto.set_learned_net(learnedNet);
    }
    return CaffeRuntime.bytes(proto);
  }

  /**
   * Restores a parsed .solverstate after checking, in Java, its history count, shapes and sizes
   * (Caffe would abort the JVM on a mismatch). Its learned_net reference is not followed.
   */
  public void restore(SolverState proto, String source) {
    BlobShapes.rejectMismatch("Solver state file " + source, netName, problems(proto));
    proto.clear_learned_net();
    restore(proto);
  }

  private List<String> problems(SolverState proto) {
    List<LearnableParams.Param> slots = slots().list();
    List<String> problems = new ArrayList<>();
    if (proto.history_size() != slots.size()) {
      problems.add(
          "it has "
              + proto.history_size()
              + " history blobs, the "
              + solverType
              + " solver of this net has "
              + slots.size());
    } else {
      for (int k = 0; k < slots.size(); k++) {
        BlobProto bp = proto.history(k);
        Shape want = slots.get(k).shape();
        Shape got = BlobShapes.of(bp);
        if (!BlobShapes.fits(bp, want)) {
          problems.add(
              "history blob "
                  + k
                  + " ("
                  + slots.get(k).layer()
                  + ") has shape "
                  + got
                  + ", the net has "
                  + want);
        } else if (bp.data_size() != got.size()) {
          problems.add("history blob " + k + " " + BlobShapes.sizeProblem(bp, got));
        }
      }
    }
    if (proto.iter() < 0) {
      problems.add("its iteration is negative (" + proto.iter() + ")");
    }
    return problems;
  }

  /** The state at {@code iter} with this solver's history. */
  private SolverState proto(int iter) {
    SolverState proto = new SolverState();
    proto.set_iter(iter);
    proto.set_current_step(LearningRates.multistepPosition(solver.param(), iter));
    FloatBlobSharedVector h = solver.history();
    for (long k = 0; k < h.size(); k++) {
      h.get(k).ToProto(proto.add_history(), false);
    }
    return proto;
  }

  /** Hands a checked SolverState (no learned_net) to Caffe's Solver::Restore. */
  private void restore(SolverState proto) {
    CaffeRuntime.throughTempFile(
        ".solverstate",
        "a solver state",
        tmp -> {
          caffe.WriteProtoToBinaryFile(proto, tmp.toString());
          solver.Restore(tmp.toString());
          return null;
        });
  }
}
