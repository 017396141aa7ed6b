package org.sparknet.apps.mnist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.sparknet.api.NetDefinition;

/** The demo's recipes: names, and the solver text each plan gets. */
class FashionRecipeTest {
  @Test
  void namesAreTheOptionValuesInAnyCase() {
    assertSame(FashionRecipe.FAST, FashionRecipe.named("fast"));
    assertSame(FashionRecipe.LENET, FashionRecipe.named("LeNet"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> FashionRecipe.named("fastest"));
    assertTrue(e.getMessage().contains("[lenet, fast]") && e.getMessage().contains("fastest"));
  }

  @Test
  void theFastSolverDecaysOverThePlannedStepsWithTheSeedGiven() {
    // Without the max_iter rewrite the solver kept the file's 10000, and a 2-epoch plan ended with
    // most of its learning rate left (this test then saw "max_iter: 10000").
    NetDefinition d = FashionRecipe.FAST.definition(7, null, 1234);
    assertTrue(d.solverText().contains("\nmax_iter: 1234\n"), d.solverText());
    assertTrue(d.solverText().contains("\nrandom_seed: 7\n"), d.solverText());
    assertTrue(d.solverText().contains("lr_policy: \"poly\""), d.solverText());
    assertEquals(7, d.seed());
    assertTrue(d.netText().contains("name: \"" + FashionRecipe.FAST.netName() + "\""));
    assertTrue(
        FashionRecipe.FAST.definition(7, 0.5, 1234).solverText().contains("\nbase_lr: 0.5\n"));
  }

  @Test
  void leNetKeepsTheDemosLearningRateUnlessGivenOne() {
    assertTrue(FashionRecipe.LENET.definition(1, null, 10).solverText().contains("base_lr: 0.03"));
    assertTrue(FashionRecipe.LENET.definition(1, 0.01, 10).solverText().contains("base_lr: 0.01"));
  }
}
