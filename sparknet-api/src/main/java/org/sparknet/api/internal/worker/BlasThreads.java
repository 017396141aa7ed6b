package org.sparknet.api.internal.worker;

import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.openblas.global.openblas_nolapack;

/**
 * The OpenBLAS threads of the JVM that runs SparkNet's tasks, set by every task before it computes.
 *
 * <p>OpenBLAS reads {@code OPENBLAS_NUM_THREADS} once, when it loads, and without it starts one
 * thread per core. Under a local master the tasks run in the driver's JVM, whose environment {@code
 * spark.executorEnv.*} never reaches, so each of the task slots' solvers ran its GEMMs on every
 * core and the solvers fought over them. The parallelism SparkNet wants is one solver per task
 * slot, each on one BLAS thread.
 *
 * <p>The count is per process, not per thread: the presets' OpenBLAS is the pthreads build, whose
 * {@code openblas_set_num_threads} sets one global count and one pool of threads that every calling
 * thread shares (an OpenMP build would keep it per thread). With a count of 1 every task thread
 * runs its own GEMMs on itself, in parallel with the others. So each task sets the same
 * process-wide value, taken from the Spark conf that every executor of the application shares (a
 * task cannot tell whether another library of its JVM changed it since).
 */
public final class BlasThreads {
  /** The Spark conf key, which {@code train.SparkSettings.BLAS_THREADS} publishes to users. */
  public static final String CONF_KEY = "spark.sparknet.blasThreads";

  private BlasThreads() {}

  /**
   * Sets the process's OpenBLAS threads for the current task: {@value #CONF_KEY} when the job's
   * local properties ({@code SparkContext.setLocalProperty}) or the Spark conf have it, else {@code
   * OPENBLAS_NUM_THREADS} when this JVM's environment has a number there, else 1. Outside Spark (no
   * {@code SparkEnv}) the same without the conf.
   *
   * @throws IllegalArgumentException when the conf value is not a positive integer
   */
  public static void forTask() {
    SparkEnv env = SparkEnv.get();
    SparkConf conf = env == null ? null : env.conf();
    TaskContext task = TaskContext.get();
    String local = task == null ? null : task.getLocalProperty(CONF_KEY);
    if (local != null) {
      conf = new SparkConf(false).set(CONF_KEY, local);
    }
    int n = threads(conf, System.getenv("OPENBLAS_NUM_THREADS"));
    set(n);
  }

  /**
   * Sets the process's BLAS threads to {@code n} unless it has them. The presets' wrappers call
   * openblas_set_num_threads, or MKL's own where MKL was loaded in OpenBLAS's place (docs/blas.md);
   * each call allocates a function pointer, freed here by the scope.
   */
  public static void set(int n) {
    try (PointerScope scope = new PointerScope()) {
      if (openblas_nolapack.blas_get_num_threads() != n) {
        openblas_nolapack.blas_set_num_threads(n);
      }
    }
  }

  /** The process's BLAS threads, as OpenBLAS (or MKL) reports them. */
  public static int get() {
    try (PointerScope scope = new PointerScope()) {
      return openblas_nolapack.blas_get_num_threads();
    }
  }

  /**
   * Checks the conf's {@value #CONF_KEY} on the driver, before a task would fail on it.
   *
   * @throws IllegalArgumentException when it is not a positive integer
   */
  public static void check(SparkConf conf) {
    threads(conf, null);
  }

  /** The thread count the conf and the environment variable's value ask for. */
  static int threads(SparkConf conf, String envValue) {
    if (conf != null && conf.contains(CONF_KEY)) {
      String v = conf.get(CONF_KEY).strip();
      try {
        int n = Integer.parseInt(v);
        if (n > 0) {
          return n;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new IllegalArgumentException(
          CONF_KEY + " must be a positive number of BLAS threads per executor but is '" + v + "'");
    }
    if (envValue != null && envValue.strip().matches("[1-9][0-9]{0,3}")) {
      return Integer.parseInt(envValue.strip());
    }
    return 1;
  }
}
