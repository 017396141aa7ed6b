package org.sparknet.caffe.train;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.TaskContext;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;

/**
 * Engine "fail-once-caffe": a real CaffeNet whose task of partition {@value #FAILING_PARTITION}
 * fails at its second train call, once per JVM: the first attempt of that task has pushed one
 * update and holds the grant of a second when it dies, as a task on a lost executor would. Spark
 * runs the task again (the session allows a retry).
 */
public final class FailOnceCaffeProvider implements NetProvider {
  public static final String ENGINE = "fail-once-caffe";
  static final int FAILING_PARTITION = 1;
  static final AtomicInteger FAILURES = new AtomicInteger();
  private static final Set<Long> CALLED = ConcurrentHashMap.newKeySet();

  @Override
  public String engine() {
    return ENGINE;
  }

  @Override
  public Net create(NetDefinition d) {
    return new StragglerCaffeProvider.Wrapped(
        StragglerCaffeProvider.caffeOf(d), FailOnceCaffeProvider::maybeFail);
  }

  private static void maybeFail(int steps) {
    TaskContext tc = TaskContext.get();
    if (tc == null || tc.partitionId() != FAILING_PARTITION || FAILURES.get() > 0) {
      return;
    }
    if (!CALLED.add(tc.taskAttemptId()) && FAILURES.getAndIncrement() == 0) {
      throw new IllegalStateException("fail-once-caffe: the task of partition 1 dies");
    }
  }
}
