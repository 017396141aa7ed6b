package org.sparknet.caffe.train;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import org.apache.spark.TaskContext;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.Phase;
import org.sparknet.api.SolverState;
import org.sparknet.api.WeightCollection;
import org.sparknet.caffe.CaffeNet;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;

/**
 * Engine "straggler-caffe": a real {@link CaffeNet} whose training steps, in the Spark task of
 * partition {@value #SLOW_PARTITION} only, sleep {@value #SLOW_MILLIS_PER_STEP} ms each: one worker
 * slowed on purpose, to compare asynchronous and synchronous rounds under a straggler. The
 * definition's solver text is Caffe's.
 */
public final class StragglerCaffeProvider implements NetProvider {
  public static final String ENGINE = "straggler-caffe";
  static final int SLOW_PARTITION = 0;
  static final long SLOW_MILLIS_PER_STEP = 40;

  @Override
  public String engine() {
    return ENGINE;
  }

  @Override
  public Net create(NetDefinition d) {
    return new Wrapped(caffeOf(d), StragglerCaffeProvider::slowDown);
  }

  private static void slowDown(int steps) {
    TaskContext tc = TaskContext.get();
    if (tc != null && tc.partitionId() == SLOW_PARTITION) {
      try {
        Thread.sleep(SLOW_MILLIS_PER_STEP * steps);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A Caffe net of definition {@code d} (whatever its engine). */
  static CaffeNet caffeOf(NetDefinition d) {
    return CaffeNet.create(
        new NetDefinition(
            "caffe", d.solverText(), d.netText(), d.sampleShape(), d.seed(), d.device()));
  }

  /** The definition of {@code caffe} on this engine. */
  static NetDefinition of(NetDefinition caffe) {
    return on(ENGINE, caffe);
  }

  /** The definition of {@code caffe} on {@code engine}. */
  static NetDefinition on(String engine, NetDefinition caffe) {
    return new NetDefinition(
        engine,
        caffe.solverText(),
        caffe.netText(),
        caffe.sampleShape(),
        caffe.seed(),
        caffe.device());
  }

  /** A Caffe net that runs {@code beforeTrain} (with the steps) before each train call. */
  record Wrapped(CaffeNet net, IntConsumer beforeTrain) implements Net {
    @Override
    public float train(int numSteps, BatchFeeder feeder) {
      beforeTrain.accept(numSteps);
      return net.train(numSteps, feeder);
    }

    @Override
    public String name() {
      return net.name();
    }

    @Override
    public Map<String, Shape> inputShapes(Phase phase) {
      return net.inputShapes(phase);
    }

    @Override
    public String lastDivergence() {
      return net.lastDivergence();
    }

    @Override
    public void reseed(long seed) {
      net.reseed(seed);
    }

    @Override
    public Map<String, Float> test(int numSteps, BatchFeeder feeder) {
      return net.test(numSteps, feeder);
    }

    @Override
    public Map<String, NDArray> forward(BatchFeeder feeder, List<String> blobs) {
      return net.forward(feeder, blobs);
    }

    @Override
    public WeightCollection getWeights() {
      return net.getWeights();
    }

    @Override
    public void setWeights(WeightCollection weights) {
      net.setWeights(weights);
    }

    @Override
    public boolean withWeightViews(Consumer<List<NDArray>> action) {
      return net.withWeightViews(action);
    }

    @Override
    public int iteration() {
      return net.iteration();
    }

    @Override
    public double learningRate(long iteration) {
      return net.learningRate(iteration);
    }

    @Override
    public boolean setMaxIterations(long maxIterations) {
      return net.setMaxIterations(maxIterations);
    }

    @Override
    public boolean hasSolverState() {
      return net.hasSolverState();
    }

    @Override
    public SolverState getSolverState() {
      return net.getSolverState();
    }

    @Override
    public void setSolverState(SolverState state) {
      net.setSolverState(state);
    }

    @Override
    public void close() {
      net.close();
    }
  }
}
