package org.sparknet.api.internal.driver;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * When the training data's blocks count as uneven: the rule that decides whether a cluster's
 * partitions are cached again after its executors changed. With the rule reduced to "never"
 * (DataSpread.uneven returning false) the first case failed, and the soak's survivor kept both
 * partitions.
 */
class DataSpreadTest {
  @Test
  void twoPartitionsOnOneOfTwoExecutorsAreUneven() {
    assertTrue(DataSpread.uneven(Map.of(0, "1", 1, "1"), Set.of("1", "2")));
  }

  @Test
  void twoPartitionsOnTheOnlyExecutorAreEven() {
    assertFalse(
        DataSpread.uneven(Map.of(0, "1", 1, "1"), Set.of("1")),
        "right after a loss the survivor is the only place for both");
  }

  @Test
  void anExecutorWithItsFairShareIsEven() {
    // 5 partitions over 2 executors: 3 on one is the even spread, 4 is not
    assertFalse(
        DataSpread.uneven(Map.of(0, "a", 1, "a", 2, "a", 3, "b", 4, "b"), Set.of("a", "b")));
    assertTrue(DataSpread.uneven(Map.of(0, "a", 1, "a", 2, "a", 3, "a", 4, "b"), Set.of("a", "b")));
  }

  @Test
  void moreExecutorsThanPartitionsWantOneEach() {
    assertTrue(DataSpread.uneven(Map.of(0, "a", 1, "a"), Set.of("a", "b", "c")));
    assertFalse(DataSpread.uneven(Map.of(0, "a", 1, "c"), Set.of("a", "b", "c")));
  }

  @Test
  void nothingCachedIsEven() {
    assertFalse(DataSpread.uneven(Map.of(), Set.of("a", "b")));
  }

  /**
   * Under dynamic allocation an executor joining makes the spread due; on a fixed cluster only a
   * loss does. With the join treated as on a fixed cluster (elastic ignored) the first case failed.
   */
  @Test
  void aJoinIsDueUnderDynamicAllocationOnly() {
    assertTrue(DataSpread.due(false, true, Set.of("0"), Set.of("0", "1")));
    assertFalse(DataSpread.due(false, false, Set.of("0"), Set.of("0", "1")), "fixed cluster");
    assertFalse(DataSpread.due(false, true, null, Set.of("0", "1")), "the first round");
    assertFalse(DataSpread.due(false, true, Set.of("0", "1"), Set.of("0")), "a loss alone");
    assertTrue(DataSpread.due(true, false, Set.of("0", "1"), Set.of("0")), "after a loss");
  }
}
