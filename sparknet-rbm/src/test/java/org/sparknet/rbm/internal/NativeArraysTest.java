package org.sparknet.rbm.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Storage;

/**
 * Arrays made together are all made or none is kept: when a later shape is bad, the arrays made
 * before it are freed. Mutation seen red: {@code zeros} without its cleanup left the 2 arrays made
 * before the bad shape live ("expected: <0> but was: <2>" live blocks).
 */
class NativeArraysTest {

  @Test
  void makesEveryArrayInOrder() {
    NDArray[] a = NativeArrays.zeros(new int[] {2, 3}, new int[] {4});
    try {
      assertEquals(2, a.length);
      assertArrayEquals(new int[] {2, 3}, a[0].shape().dims());
      assertArrayEquals(new float[4], a[1].toArray());
    } finally {
      NativeArrays.close(a);
    }
  }

  @Test
  void aFailedAllocationFreesThoseAlreadyMade() {
    long before = Storage.liveOwnedBlocks();
    assertThrows(
        IllegalArgumentException.class,
        () -> NativeArrays.zeros(new int[] {2, 3}, new int[] {4}, new int[] {-1}));
    assertEquals(before, Storage.liveOwnedBlocks());
  }

  @Test
  void closeSkipsNulls() {
    NDArray a = NDArray.zeros(2);
    NativeArrays.close(null, a, null);
    assertThrows(IllegalStateException.class, a::toArray);
  }
}
