package org.sparknet.ndarray;

import java.nio.FloatBuffer;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.javacpp.FloatPointer;

/**
 * A block of native float memory and the answer to "may it still be read?".
 *
 * <p>An owning storage allocated its memory and frees it on {@link #close()}. A borrowed storage
 * describes memory that someone else owns (a Caffe blob): closing it frees nothing, it only marks
 * every array over it as stale, so that a view never reads memory its owner has freed or moved. The
 * owner of borrowed memory (for example a Caffe net) must close the storage before it frees,
 * reshapes or reallocates the memory.
 */
public final class Storage implements AutoCloseable {
  private static final AtomicLong LIVE_OWNED_BYTES = new AtomicLong();
  private static final AtomicLong LIVE_OWNED_BLOCKS = new AtomicLong();

  private final FloatPointer pointer;
  private final FloatBuffer buffer;
  private final long count;
  private final boolean owning;
  private final String description;
  private volatile boolean closed;

  private Storage(FloatPointer pointer, long count, boolean owning, String description) {
    this.pointer = pointer;
    this.count = count;
    this.owning = owning;
    this.description = description;
    // A direct buffer over the same memory: element access without a JNI call per element.
    this.buffer =
        count == 0 ? FloatBuffer.allocate(0) : pointer.position(0).capacity(count).asBuffer();
  }

  /** Allocates {@code count} zeroed floats of native memory, owned by the returned storage. */
  public static Storage allocate(long count) {
    if (count < 0 || count > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "Cannot allocate " + count + " floats: must be between 0 and " + Integer.MAX_VALUE);
    }
    FloatPointer p = new FloatPointer(Math.max(1, count));
    p.zero();
    LIVE_OWNED_BYTES.addAndGet(count * Float.BYTES);
    LIVE_OWNED_BLOCKS.incrementAndGet();
    return new Storage(p, count, true, "native array of " + count + " floats");
  }

  /**
   * Describes {@code count} floats at {@code memory} (from its position 0) owned by someone else.
   * The returned storage never frees the memory; its owner closes it to invalidate every view.
   *
   * @param description names the memory in error messages, for example "blob 'conv1' of net lenet"
   */
  public static Storage borrow(FloatPointer memory, long count, String description) {
    if (memory == null || memory.isNull()) {
      throw new IllegalArgumentException("Cannot borrow a null pointer for " + description);
    }
    if (count < 0 || count > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "Cannot borrow " + count + " floats for " + description + ": out of range");
    }
    // Our own pointer object, so that positions and limits set here never disturb the caller's.
    FloatPointer own = new FloatPointer(memory).position(0).capacity(count).limit(count);
    return new Storage(own, count, false, description);
  }

  /** Bytes of native memory currently held by owning storages (for leak checks). */
  public static long liveOwnedBytes() {
    return LIVE_OWNED_BYTES.get();
  }

  /** Number of owning storages not yet closed (for leak checks). */
  public static long liveOwnedBlocks() {
    return LIVE_OWNED_BLOCKS.get();
  }

  public long count() {
    return count;
  }

  public boolean isOwning() {
    return owning;
  }

  public boolean isClosed() {
    return closed;
  }

  public String description() {
    return description;
  }

  /** Throws {@link IllegalStateException} if this storage has been closed. */
  public void checkOpen() {
    if (closed) {
      throw new IllegalStateException(
          "Use after close: " + description + " has been closed or invalidated by its owner");
    }
  }

  /** The direct buffer over the whole block; callers must {@link #checkOpen()} first. */
  FloatBuffer buffer() {
    return buffer;
  }

  /** The pointer at element 0; callers must {@link #checkOpen()} first and not keep it. */
  FloatPointer pointer() {
    return pointer;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (owning) {
      pointer.deallocate();
      LIVE_OWNED_BYTES.addAndGet(-count * Float.BYTES);
      LIVE_OWNED_BLOCKS.decrementAndGet();
    } else {
      // Only our own wrapper object; the memory belongs to someone else.
      pointer.setNull();
    }
  }

  @Override
  public String toString() {
    return (closed ? "closed " : "") + description;
  }
}
