package org.sparknet.api.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The solver text of every solver type and policy, and the checks. */
class SolverSpecTest {
  @Test
  void lenetSolverText() {
    assertEquals(
        """
        type: "SGD"
        base_lr: 0.01
        momentum: 0.9
        weight_decay: 0.0005
        lr_policy: "inv"
        gamma: 0.0001
        power: 0.75
        max_iter: 10000
        """,
        ExampleNets.lenetSolver().toPrototxt());
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(SolverSpec.Type.class)
  void everySolverTypeHasItsText(SolverSpec.Type type) {
    String expected =
        switch (type) {
          case SGD -> "type: \"SGD\"\nbase_lr: 0.1\nlr_policy: \"fixed\"\n";
          case NESTEROV -> "type: \"Nesterov\"\nbase_lr: 0.1\nlr_policy: \"fixed\"\n";
          case ADAGRAD -> "type: \"AdaGrad\"\nbase_lr: 0.1\nlr_policy: \"fixed\"\n";
          case RMSPROP -> "type: \"RMSProp\"\nbase_lr: 0.1\nlr_policy: \"fixed\"\n";
          case ADADELTA ->
              "type: \"AdaDelta\"\nbase_lr: 0.1\nmomentum: 0.95\ndelta: 0.000001\n"
                  + "lr_policy: \"fixed\"\n";
          case ADAM -> "type: \"Adam\"\nbase_lr: 0.1\nmomentum: 0.9\nlr_policy: \"fixed\"\n";
        };
    SolverSpec s =
        switch (type) {
          case SGD -> SolverSpec.sgd(0.1);
          case NESTEROV -> SolverSpec.nesterov(0.1);
          case ADAGRAD -> SolverSpec.adaGrad(0.1);
          case RMSPROP -> SolverSpec.rmsProp(0.1);
          case ADADELTA -> SolverSpec.adaDelta(0.1);
          case ADAM -> SolverSpec.adam(0.1);
        };
    assertEquals(expected, s.toPrototxt());
    assertEquals(type, s.type());
    assertEquals(
        "type: \"" + type.caffeName() + "\"\nbase_lr: 0.1\nlr_policy: \"fixed\"\n",
        SolverSpec.of(type, 0.1).toPrototxt());
  }

  @Test
  void everyHyperParameterIsWritten() {
    assertEquals(
        """
        type: "Adam"
        base_lr: 0.001
        momentum: 0.8
        momentum2: 0.99
        delta: 0.00000001
        weight_decay: 0.0001
        regularization_type: "L1"
        clip_gradients: 10
        iter_size: 2
        lr_policy: "fixed"
        max_iter: 500
        test_iter: 100
        test_interval: 50
        random_seed: 7
        """,
        SolverSpec.adam(0.001)
            .optMomentum(0.8)
            .optMomentum2(0.99)
            .optDelta(1e-8)
            .optWeightDecay(1e-4)
            .optRegularization(SolverSpec.Regularization.L1)
            .optClipGradients(10)
            .optIterSize(2)
            .optMaxIter(500)
            .optTestIter(100)
            .optTestInterval(50)
            .optRandomSeed(7)
            .toPrototxt());
    assertEquals(
        "type: \"RMSProp\"\nbase_lr: 0.01\nrms_decay: 0.98\nlr_policy: \"fixed\"\n",
        SolverSpec.rmsProp(0.01).optRmsDecay(0.98).toPrototxt());
  }

  @Test
  void everyPolicyHasItsFields() {
    String head = "type: \"SGD\"\nbase_lr: 0.1\n";
    assertEquals(
        head + "lr_policy: \"step\"\ngamma: 0.1\nstepsize: 1000\n",
        SolverSpec.sgd(0.1).optStepPolicy(0.1, 1000).toPrototxt());
    assertEquals(
        head + "lr_policy: \"exp\"\ngamma: 0.999\n",
        SolverSpec.sgd(0.1).optExpPolicy(0.999).toPrototxt());
    assertEquals(
        head + "lr_policy: \"inv\"\ngamma: 0.0001\npower: 0.75\n",
        SolverSpec.sgd(0.1).optInvPolicy(0.0001, 0.75).toPrototxt());
    assertEquals(
        head + "lr_policy: \"multistep\"\ngamma: 0.5\nstepvalue: 100\nstepvalue: 300\n",
        SolverSpec.sgd(0.1).optMultistepPolicy(0.5, 100, 300).toPrototxt());
    assertEquals(
        head + "lr_policy: \"poly\"\npower: 2\nmax_iter: 1000\n",
        SolverSpec.sgd(0.1).optPolyPolicy(2).optMaxIter(1000).toPrototxt());
    assertEquals(
        head + "lr_policy: \"sigmoid\"\ngamma: -0.01\nstepsize: 500\n",
        SolverSpec.sgd(0.1).optSigmoidPolicy(-0.01, 500).toPrototxt());
    assertEquals(
        head + "lr_policy: \"fixed\"\n",
        SolverSpec.sgd(0.1).optStepPolicy(0.1, 10).optFixedPolicy().toPrototxt());
  }

  private static void rejects(Executable build, String fragment) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build);
    assertTrue(
        e.getMessage().contains(fragment), "expected '" + fragment + "' in: " + e.getMessage());
  }

  @Test
  void badSettingsAreRejectedWithTheField() {
    rejects(
        () -> SolverSpec.sgd(0),
        "solver (SGD), field 'base_lr': must be a positive number but was 0.0");
    rejects(
        () -> SolverSpec.adaGrad(0.1).optMomentum(0.9),
        "solver (AdaGrad), field 'momentum': the AdaGrad solver does not use momentum");
    rejects(() -> SolverSpec.rmsProp(0.1).optMomentum(0.9), "solver (RMSProp), field 'momentum'");
    rejects(() -> SolverSpec.sgd(0.1).optMomentum(1.0), "field 'momentum': must lie in [0, 1)");
    rejects(
        () -> SolverSpec.sgd(0.1).optMomentum2(0.99), "field 'momentum2': only the Adam solver");
    rejects(
        () -> SolverSpec.nesterov(0.1).optDelta(1e-8),
        "field 'delta': the Nesterov solver does not use delta");
    rejects(
        () -> SolverSpec.adam(0.1).optRmsDecay(0.9), "field 'rms_decay': only the RMSProp solver");
    rejects(
        () -> SolverSpec.rmsProp(0.1).optRmsDecay(1.5), "field 'rms_decay': must lie in [0, 1]");
    rejects(() -> SolverSpec.sgd(0.1).optWeightDecay(-1), "field 'weight_decay'");
    rejects(
        () -> SolverSpec.sgd(0.1).optStepPolicy(0.1, 0),
        "field 'stepsize': must be positive but was 0");
    rejects(
        () -> SolverSpec.sgd(0.1).optMultistepPolicy(0.1, 300, 100),
        "field 'stepvalue': values must be positive and increase, got [300, 100]");
    rejects(() -> SolverSpec.sgd(0.1).optMultistepPolicy(0.1), "needs at least one step value");
    rejects(
        () -> SolverSpec.sgd(0.1).optPolyPolicy(1).toPrototxt(),
        "field 'max_iter': the poly policy needs max_iter");
    rejects(() -> SolverSpec.sgd(0.1).optRandomSeed(-1), "field 'random_seed': must be >= 0");
    rejects(() -> SolverSpec.sgd(0.1).optMaxIter(0), "field 'max_iter': must be positive");
  }
}
