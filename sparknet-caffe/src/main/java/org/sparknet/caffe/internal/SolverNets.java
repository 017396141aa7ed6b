package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.List;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * The nets a solver defines, checked as Caffe's {@code Solver::InitTrainNet} and {@code
 * Solver::InitTestNets} CHECK them (a failed CHECK would abort the JVM): one train net; the test
 * nets of {@code test_net_param}, then of {@code test_net} files, then as many instances of the
 * generic net ({@code net} or {@code net_param}) as there are {@code test_iter} values left; one
 * {@code test_iter} per test net and no {@code test_state} or one per test net.
 */
final class SolverNets {
  private static final String SOLVER = "solver definition";

  /**
   * One test net as the solver defines it, before its data layers are rewritten.
   *
   * @param index the test net's number, as Caffe prints it ("Test net #1")
   * @param net its own net ({@code test_net_param}), or null for an instance of the generic net
   * @param source names the net in errors
   * @param testState its {@code test_state}, or null when the solver gives none
   * @param testIter its {@code test_iter}
   */
  record TestNetSource(int index, Message net, String source, Message testState, int testIter) {}

  private SolverNets() {}

  /**
   * Whether the solver's net (or the definition's net text, when {@code netTextGiven}) is Caffe's
   * generic net, the one both training and testing instantiate, rather than a {@code train_net}.
   */
  static boolean hasGenericNet(Message solver, boolean netTextGiven) {
    if (solver.has("net") || solver.has("net_param")) {
      return true;
    }
    return netTextGiven && !solver.has("train_net") && !solver.has("train_net_param");
  }

  /** Caffe's InitTrainNet: at most one of net, net_param, train_net and train_net_param. */
  static void checkTrainNet(Message solver) {
    List<String> given = new ArrayList<>();
    for (String f : List.of("train_net_param", "train_net", "net_param", "net")) {
      if (solver.has(f)) {
        given.add(f);
      }
    }
    if (given.size() > 1) {
      throw new IllegalArgumentException(
          SOLVER
              + ": the train net is given by "
              + given
              + "; Caffe takes exactly one of train_net_param, train_net, net_param and net");
    }
  }

  /**
   * The test nets, in Caffe's order.
   *
   * @param generic whether there is a generic net ({@link #hasGenericNet})
   * @throws IllegalArgumentException where Caffe's InitTestNets would fail a CHECK, and for a
   *     {@code test_net} file name (its text must be embedded as {@code test_net_param})
   */
  static List<TestNetSource> testNets(Message solver, boolean generic) {
    List<Field> params = solver.all("test_net_param");
    List<String> files = solver.values("test_net");
    if (!files.isEmpty()) {
      throw new IllegalArgumentException(
          SOLVER
              + " names the test net file '"
              + files.get(0)
              + "' but no net text was given: embed that file's contents in the solver as"
              + " test_net_param { ... } (the sparknet CLI and the Spark ML stages' setSolverFile read"
              + " test_net files themselves)");
    }
    List<Integer> iters = testIters(solver);
    int own = params.size();
    if (generic ? iters.size() < own : iters.size() != own) {
      throw new IllegalArgumentException(
          SOLVER
              + ": "
              + own
              + " test net(s) of their own (test_net_param) "
              + (generic ? "and the generic net " : "")
              + "but "
              + iters.size()
              + " test_iter value(s); test_iter must be given once for each test net"
              + (generic
                  ? ", and once more for each instance of the generic net to test"
                  : " (there is no generic net: the train net is train_net or train_net_param)"));
    }
    List<Field> states = solver.all("test_state");
    if (!states.isEmpty() && states.size() != iters.size()) {
      throw new IllegalArgumentException(
          SOLVER
              + ": "
              + states.size()
              + " test_state value(s) for "
              + iters.size()
              + " test net(s) (one per test_iter); test_state must be left out or given once per"
              + " test net");
    }
    List<TestNetSource> out = new ArrayList<>();
    for (int i = 0; i < iters.size(); i++) {
      Message net = i < own ? params.get(i).message() : null;
      String source =
          i < own
              ? SOLVER + ", test_net_param #" + i
              : SOLVER + ", test net #" + i + " (the generic net)";
      Message state = states.isEmpty() ? null : states.get(i).message();
      out.add(new TestNetSource(i, net, source, state, iters.get(i)));
    }
    return out;
  }

  private static List<Integer> testIters(Message solver) {
    List<Integer> out = new ArrayList<>();
    for (Field f : solver.all("test_iter")) {
      int n = NetState.intOf(f.value(), SOLVER + ", " + f.where() + ", field 'test_iter'");
      if (n < 0) {
        throw new IllegalArgumentException(
            SOLVER + ", " + f.where() + ", field 'test_iter': must be >= 0 but is " + n);
      }
      out.add(n);
    }
    return out;
  }
}
