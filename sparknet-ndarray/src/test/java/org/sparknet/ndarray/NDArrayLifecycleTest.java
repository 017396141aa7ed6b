package org.sparknet.ndarray;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.Pointer;
import org.junit.jupiter.api.Test;
import org.sparknet.testing.NDAssert;
import org.sparknet.testing.Tolerance;

class NDArrayLifecycleTest {

  @Test
  void closingTheOwnerMakesEveryViewThrow() {
    long before = Storage.liveOwnedBlocks();
    NDArray owner = NDArray.create(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
    NDArray row = owner.slice(0, 1);
    NDArray cell = row.subArray(new int[] {1}, new int[] {1});
    NDArray flat = owner.reshape(6);
    assertEquals(before + 1, Storage.liveOwnedBlocks());
    owner.close();
    assertEquals(before, Storage.liveOwnedBlocks(), "closing the owner frees its storage");
    for (NDArray a : new NDArray[] {owner, row, cell, flat}) {
      assertTrue(a.isClosed(), a + " reports closed");
    }
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> row.get(0));
    assertEquals(
        "Use after close: native array of 6 floats has been closed or invalidated by its owner",
        e.getMessage());
    assertThrows(IllegalStateException.class, () -> cell.set(1f, 0));
    assertThrows(IllegalStateException.class, flat::toArray);
    assertThrows(IllegalStateException.class, () -> row.fill(0));
    assertThrows(IllegalStateException.class, () -> row.slice(0, 0));
    IllegalStateException own = assertThrows(IllegalStateException.class, () -> owner.get(0, 0));
    assertEquals("Use after close: NDArray of shape [2, 3] is closed", own.getMessage());
  }

  @Test
  void closingTwiceIsHarmless() {
    NDArray owner = NDArray.zeros(4);
    NDArray view = owner.subArray(new int[] {1}, new int[] {2});
    view.close();
    view.close();
    assertTrue(view.isClosed());
    assertFalse(owner.isClosed(), "closing a view leaves its owner open");
    owner.set(3f, 1);
    assertEquals(3f, owner.get(1));
    long blocks = Storage.liveOwnedBlocks();
    long bytes = Pointer.totalBytes();
    owner.close();
    owner.close();
    assertEquals(blocks - 1, Storage.liveOwnedBlocks(), "freed exactly once");
    assertTrue(Pointer.totalBytes() < bytes, "JavaCPP memory went down");
    assertDoesNotThrow(owner::close);
  }

  @Test
  void aBorrowedStorageInvalidatesItsArraysAndFreesNothing() {
    try (FloatPointer memory = new FloatPointer(12)) {
      for (int i = 0; i < 12; i++) {
        memory.put(i, i);
      }
      long blocks = Storage.liveOwnedBlocks();
      Storage borrowed = Storage.borrow(memory, 12, "blob 'ip1' of net test");
      assertFalse(borrowed.isOwning());
      assertEquals(blocks, Storage.liveOwnedBlocks(), "borrowing allocates nothing");
      NDArray a = NDArray.wrap(borrowed, Shape.of(3, 4));
      assertFalse(a.isOwner());
      NDArray column = a.slice(1, 3);
      NDAssert.assertAllClose(new float[] {3, 7, 11}, column, Tolerance.EXACT);
      column.fill(-1);
      assertEquals(-1f, memory.get(7), "writes reach the borrowed memory");
      a.close(); // closing a non-owning array frees nothing
      assertEquals(-1f, memory.get(11));

      NDArray b = NDArray.wrap(borrowed, Shape.of(12));
      borrowed.close();
      borrowed.close(); // harmless
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> b.get(0));
      assertEquals(
          "Use after close: blob 'ip1' of net test has been closed or invalidated by its owner",
          e.getMessage());
      assertThrows(IllegalStateException.class, () -> column.get(0));
      assertThrows(IllegalStateException.class, () -> NDArray.wrap(borrowed, Shape.of(2)));
      assertEquals(5f, memory.get(5), "the memory itself is untouched and still owned by us");
      assertFalse(memory.isNull());
    }
  }

  @Test
  void wrapChecksTheBorrowedSize() {
    try (FloatPointer memory = new FloatPointer(6)) {
      Storage s = Storage.borrow(memory, 6, "blob 'data'");
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> NDArray.wrap(s, Shape.of(2, 4)));
      assertEquals("Shape [2, 4] needs 8 floats but blob 'data' holds 6", e.getMessage());
      s.close();
    }
  }

  @Test
  void zerosAreZeroAndCreateCopiesItsInput() {
    float[] data = {1, 2, 3};
    try (NDArray z = NDArray.zeros(1000);
        NDArray c = NDArray.create(data, 3)) {
      assertEquals(0.0, z.norm2());
      data[0] = 100;
      assertEquals(1f, c.get(0), "create copies the data");
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> NDArray.create(data, 2, 2));
      assertEquals("Shape [2, 2] holds 4 floats but the data has 3", e.getMessage());
    }
  }
}
