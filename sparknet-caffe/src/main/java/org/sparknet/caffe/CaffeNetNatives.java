package org.sparknet.caffe;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.caffe.FloatSGDSolver;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.caffe.internal.CaffeRuntime;
import org.sparknet.caffe.internal.CheckedStep;
import org.sparknet.caffe.internal.Divergence;
import org.sparknet.caffe.internal.HostReads;
import org.sparknet.caffe.internal.InputTransforms;
import org.sparknet.caffe.internal.LearnableParams;
import org.sparknet.caffe.internal.LossTerms;
import org.sparknet.caffe.internal.NetMemory;
import org.sparknet.caffe.internal.NetPlan;
import org.sparknet.caffe.internal.Solvers;
import org.sparknet.caffe.internal.StepProbe;
import org.sparknet.caffe.internal.TestNetPlan;

/**
 * The native objects of one {@link CaffeNet}, built together from its plan and closed together: the
 * solver (with the train net), one TEST net per test net of the plan sharing the trained layers,
 * the step probe and the input transforms' staging memory; with the objects over them that the
 * net's steps use (learnable params, checked step).
 *
 * <p>{@link #build} runs on the thread whose Caffe device the caller has set, and frees what it
 * built when any part fails, so that a failed {@link CaffeNet} constructor leaves nothing behind.
 * {@link CaffeNet} owns the result and calls {@link #close()} in the device it was built in. A
 * record: the parts are handed to {@link CaffeNet} as they are, nothing is computed from them.
 */
record CaffeNetNatives(
    FloatSGDSolver solver, // with the train net
    List<FloatNet> testNets, // one per test net of the plan, trained layers shared
    LearnableParams params, // owned (learnable) params, net order
    StepProbe probe,
    CheckedStep step,
    InputTransforms transforms) // crop, mirror, mean file; owns staging memory
    implements AutoCloseable {

  /**
   * Builds the natives of {@code plan} on device {@code deviceId} (already set on this thread),
   * counting the step probe's reads in {@code reads}; {@code seed} seeds the input transforms.
   */
  static CaffeNetNatives build(NetPlan plan, int deviceId, long seed, HostReads reads) {
    FloatSGDSolver s = null;
    StepProbe pr = null;
    LearnableParams params;
    CheckedStep step;
    List<FloatNet> ts = new ArrayList<>();
    try (PointerScope scope = new PointerScope()) {
      s = Solvers.create(plan);
      FloatNet train = s.net();
      for (TestNetPlan tp : plan.testNets()) {
        ts.add(TestPhaseNet.build(tp, train, scope));
      }
      params = LearnableParams.of(train, plan.netName());
      LossTerms lossTerms = LossTerms.of(train);
      Divergence divergence = Divergence.of(train, params);
      pr =
          new StepProbe(
              divergence.maxCount(train),
              lossTerms.blobs(),
              lossTerms.valueCount(),
              reads,
              deviceId < 0);
      step = new CheckedStep(s, divergence, lossTerms, pr, reads);
      TestPhaseNet.checkInputs(train, plan.trainInputs());
      for (int k = 0; k < ts.size(); k++) {
        TestPhaseNet.checkInputs(ts.get(k), plan.testNet(k).inputs());
      }
      if (deviceId >= 0) {
        // Before the first pass, which allocates on the GPU: Caffe aborts on a failed cudaMalloc.
        NetMemory.of(plan, train, ts, deviceId).check(CaffeRuntime.freeGpuBytes(deviceId));
      }
    } catch (RuntimeException | Error e) {
      ts.forEach(FloatNet::close);
      if (pr != null) {
        pr.close();
      }
      if (s != null) {
        s.close();
      }
      throw e;
    }
    InputTransforms tr = null;
    try {
      tr = new InputTransforms(plan, seed);
    } finally {
      if (tr == null) {
        ts.forEach(FloatNet::close);
        pr.close();
        s.close();
      }
    }
    return new CaffeNetNatives(s, List.copyOf(ts), params, pr, step, tr);
  }

  /**
   * Frees everything built; called once, by {@link CaffeNet#close()} (which makes closing
   * idempotent) after it set the device the natives were built in.
   */
  @Override
  public void close() {
    transforms.close();
    testNets.forEach(FloatNet::close);
    probe.close();
    solver.close();
  }
}
