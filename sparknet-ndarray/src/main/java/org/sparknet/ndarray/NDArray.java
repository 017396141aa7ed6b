package org.sparknet.ndarray;

import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.util.Arrays;
import org.bytedeco.javacpp.FloatPointer;

/**
 * A tensor of 32-bit floats over native memory: an owning array, or a strided view that shares the
 * memory of another array or of a borrowed block (a Caffe blob) without copying.
 *
 * <p>Layout (shape, strides, offset) is kept apart from the {@link Storage}. Views ({@link
 * #subArray}, {@link #slice}, {@link #reshape}) never own: they keep their storage reachable and
 * throw {@link IllegalStateException} once it has been closed. Closing an owning array frees its
 * memory and invalidates all its views; closing a view only closes the view. {@code close()} is
 * idempotent. Copy, scale and axpy on contiguous arrays run in OpenBLAS; dot accumulates in double.
 *
 * <p>Serialization (Java, and Kryo through {@code org.sparknet.ndarray.kryo.NDArraySerializer})
 * carries the contents only: the shape and the elements in row-major order. Native memory never
 * crosses the wire: deserializing always makes a new <em>owning</em>, contiguous array, which the
 * receiver must {@link #close()}. A view serializes as a copy of the elements it sees.
 *
 * <p>When the source of {@link #copyFrom(NDArray)}, {@link #add} or {@link #addScaled} shares
 * memory with this array at a different layout, the source is copied first, so overlapping views
 * behave as if the source had been read entirely before any write.
 */
public final class NDArray implements AutoCloseable, Serializable {
  private static final long serialVersionUID = 1L;

  // Not serialized: writeReplace sends a SerialForm (shape + floats) instead.
  private final transient Storage storage;
  private final transient boolean owner;
  private final transient long offset;
  private final transient Shape shape;
  private final transient int[] dims;
  private final transient long[] strides;
  private final transient long size;
  private transient volatile boolean closed;

  /** The dimensions, not copied: for this package's own arithmetic. */
  int[] dimsRef() {
    return dims;
  }

  Storage storage() {
    return storage;
  }

  long offset() {
    return offset;
  }

  private NDArray(Storage storage, boolean owner, long offset, Shape shape, long[] strides) {
    this.storage = storage;
    this.owner = owner;
    this.offset = offset;
    this.shape = shape;
    this.dims = shape.dims();
    this.strides = strides;
    this.size = shape.size();
  }

  // ---------------------------------------------------------------- creation

  /** A new owning array of zeros. */
  public static NDArray zeros(int... dims) {
    Shape shape = Shape.of(dims);
    return new NDArray(Storage.allocate(shape.size()), true, 0, shape, shape.contiguousStrides());
  }

  /** A new owning array holding a copy of {@code data}, whose length must match the shape. */
  public static NDArray create(float[] data, int... dims) {
    Shape shape = Shape.of(dims);
    if (data == null || data.length != shape.size()) {
      throw new IllegalArgumentException(
          "Shape "
              + shape
              + " holds "
              + shape.size()
              + " floats but the data has "
              + (data == null ? "none (null)" : data.length));
    }
    NDArray a = zeros(dims);
    a.storage.buffer().duplicate().put(data);
    return a;
  }

  /**
   * A contiguous, non-owning array over memory that someone else owns. The storage must hold at
   * least {@code shape.size()} floats; whoever owns the memory closes the storage to invalidate
   * this array and its views.
   */
  public static NDArray wrap(Storage storage, Shape shape) {
    storage.checkOpen();
    if (shape.size() > storage.count()) {
      throw new IllegalArgumentException(
          "Shape "
              + shape
              + " needs "
              + shape.size()
              + " floats but "
              + storage.description()
              + " holds "
              + storage.count());
    }
    return new NDArray(storage, false, 0, shape, shape.contiguousStrides());
  }

  // ---------------------------------------------------------------- layout

  public Shape shape() {
    return shape;
  }

  public int rank() {
    return dims.length;
  }

  public long size() {
    return size;
  }

  /** Element strides of this array (a copy). */
  public long[] strides() {
    return strides.clone();
  }

  /** True when the elements lie in row-major order with no gaps. */
  public boolean isContiguous() {
    long expected = 1;
    for (int i = dims.length - 1; i >= 0; i--) {
      if (dims[i] != 1 && strides[i] != expected) {
        return false;
      }
      expected *= dims[i];
    }
    return true;
  }

  /** True when this array frees its memory on close. */
  public boolean isOwner() {
    return owner;
  }

  public boolean isClosed() {
    return closed || storage.isClosed();
  }

  // ---------------------------------------------------------------- element access

  public float get(int... indices) {
    checkOpen();
    return storage.buffer().get(index(indices));
  }

  public void set(float value, int... indices) {
    checkOpen();
    storage.buffer().put(index(indices), value);
  }

  /** The element at row-major position {@code flat} of this array's shape (strides applied). */
  public float getFlat(long flat) {
    checkOpen();
    return storage.buffer().get(flatToIndex(flat));
  }

  public void setFlat(long flat, float value) {
    checkOpen();
    storage.buffer().put(flatToIndex(flat), value);
  }

  private int index(int[] indices) {
    if (indices.length != dims.length) {
      throw new IllegalArgumentException(
          "Array of shape "
              + shape
              + " needs "
              + dims.length
              + " indices but got "
              + indices.length
              + " "
              + Arrays.toString(indices));
    }
    long pos = offset;
    for (int i = 0; i < dims.length; i++) {
      if (indices[i] < 0 || indices[i] >= dims[i]) {
        throw new IndexOutOfBoundsException(
            "Index "
                + Arrays.toString(indices)
                + " is out of bounds for shape "
                + shape
                + " at dimension "
                + i);
      }
      pos += indices[i] * strides[i];
    }
    return (int) pos;
  }

  private int flatToIndex(long flat) {
    if (flat < 0 || flat >= size) {
      throw new IndexOutOfBoundsException(
          "Flat index " + flat + " is out of bounds for shape " + shape + " (size " + size + ")");
    }
    long pos = offset;
    for (int i = dims.length - 1; i >= 0; i--) {
      pos += (flat % dims[i]) * strides[i];
      flat /= dims[i];
    }
    return (int) pos;
  }

  // ---------------------------------------------------------------- views

  /**
   * A view of the block starting at {@code offsets} with extents {@code extents}; it shares memory
   * with this array.
   */
  public NDArray subArray(int[] offsets, int[] extents) {
    checkOpen();
    if (offsets.length != dims.length || extents.length != dims.length) {
      throw new IllegalArgumentException(
          "subArray of shape "
              + shape
              + " needs "
              + dims.length
              + " offsets and extents but got "
              + Arrays.toString(offsets)
              + " and "
              + Arrays.toString(extents));
    }
    long start = offset;
    for (int i = 0; i < dims.length; i++) {
      if (offsets[i] < 0 || extents[i] < 0 || (long) offsets[i] + extents[i] > dims[i]) {
        throw new IndexOutOfBoundsException(
            "subArray offsets "
                + Arrays.toString(offsets)
                + " and extents "
                + Arrays.toString(extents)
                + " exceed shape "
                + shape
                + " at dimension "
                + i);
      }
      start += offsets[i] * strides[i];
    }
    return new NDArray(storage, false, start, Shape.of(extents), strides.clone());
  }

  /** The view at {@code index} along {@code axis}: one rank fewer, sharing memory. */
  public NDArray slice(int axis, int index) {
    checkOpen();
    if (axis < 0 || axis >= dims.length) {
      throw new IllegalArgumentException("slice axis " + axis + " is outside shape " + shape);
    }
    if (index < 0 || index >= dims[axis]) {
      throw new IndexOutOfBoundsException(
          "slice index " + index + " is out of bounds for axis " + axis + " of shape " + shape);
    }
    int[] newDims = new int[dims.length - 1];
    long[] newStrides = new long[dims.length - 1];
    for (int i = 0, j = 0; i < dims.length; i++) {
      if (i != axis) {
        newDims[j] = dims[i];
        newStrides[j] = strides[i];
        j++;
      }
    }
    return new NDArray(
        storage, false, offset + index * strides[axis], Shape.of(newDims), newStrides);
  }

  /** A view with another shape of the same size; only contiguous arrays can be reshaped. */
  public NDArray reshape(int... newDims) {
    checkOpen();
    Shape newShape = Shape.of(newDims);
    if (newShape.size() != size) {
      throw new IllegalArgumentException(
          "Cannot reshape "
              + shape
              + " ("
              + size
              + " floats) to "
              + newShape
              + " ("
              + newShape.size()
              + " floats)");
    }
    if (!isContiguous()) {
      throw new IllegalArgumentException(
          "Cannot reshape a strided view of shape "
              + shape
              + " with strides "
              + Arrays.toString(strides)
              + " without copying; copy it first");
    }
    return new NDArray(storage, false, offset, newShape, newShape.contiguousStrides());
  }

  // ---------------------------------------------------------------- bulk copies

  public float[] toArray() {
    float[] out = new float[Math.toIntExact(size)];
    copyTo(out);
    return out;
  }

  /** Copies the elements in row-major order into {@code dest}, which must hold exactly size(). */
  public void copyTo(float[] dest) {
    copyTo(dest, 0);
  }

  /** Copies the elements in row-major order into {@code dest} from {@code destOffset}. */
  public void copyTo(float[] dest, int destOffset) {
    BulkCopies.toHeap(this, dest, destOffset);
  }

  /** Copies {@code src} (row-major, exactly size() floats) into this array. */
  public void copyFrom(float[] src) {
    checkOpen();
    if (src.length != size) {
      throw new IllegalArgumentException(
          "Array of shape "
              + shape
              + " holds "
              + size
              + " floats but the source has "
              + src.length);
    }
    copyFrom(src, 0);
  }

  /** Copies size() floats of {@code src} starting at {@code srcOffset} into this array. */
  public void copyFrom(float[] src, int srcOffset) {
    BulkCopies.fromHeap(this, src, srcOffset);
  }

  /** Copies another array of the same shape into this one. */
  public void copyFrom(NDArray src) {
    BulkCopies.between(src, this);
  }

  // ---------------------------------------------------------------- arithmetic (in place)

  /** Sets every element to {@code value}. */
  public NDArray fill(float value) {
    return ElementOps.fill(this, value);
  }

  /** this *= alpha. */
  public NDArray scale(float alpha) {
    return ElementOps.scale(this, alpha);
  }

  /** this += other. */
  public NDArray add(NDArray other) {
    return addScaled(1f, other);
  }

  /** this += alpha * other (BLAS axpy). */
  public NDArray addScaled(float alpha, NDArray other) {
    return ElementOps.addScaled(this, alpha, other);
  }

  /** Sum of element-wise products, accumulated in double in row-major order. */
  public double dot(NDArray other) {
    return ElementOps.dot(this, other);
  }

  /** Euclidean norm. */
  public double norm2() {
    return Math.sqrt(dot(this));
  }

  // ---------------------------------------------------------------- matrices

  /**
   * Matrix product in OpenBLAS ({@code cblas_sgemm}): {@code this = alpha op(a) op(b) + beta this},
   * where {@code op(x)} is x or its transpose. All three must be contiguous rank-2 arrays (owners
   * or contiguous views); {@code this} must not share memory with {@code a} or {@code b}. With
   * {@code beta = 0} the old contents of this array are ignored (NaNs included).
   *
   * @return this array
   * @throws IllegalArgumentException when a rank, a layout or an inner dimension does not fit
   */
  public NDArray gemm(
      float alpha, NDArray a, boolean transA, NDArray b, boolean transB, float beta) {
    return MatrixOps.gemm(this, alpha, a, transA, b, transB, beta);
  }

  /** A new owning array {@code a b} (OpenBLAS); see {@link #gemm}. */
  public static NDArray matmul(NDArray a, NDArray b) {
    return MatrixOps.matmul(a, b);
  }

  /** Applies the logistic function {@code 1 / (1 + exp(-x))} to every element, in place. */
  public NDArray sigmoid() {
    return MatrixOps.sigmoid(this);
  }

  /** Adds {@code row} (shape [columns]) to every row of this matrix, in place (a bias). */
  public NDArray addRowVector(NDArray row) {
    return MatrixOps.addRowVector(this, row);
  }

  /**
   * {@code out = alpha * (sum of this matrix's rows) + beta * out}: the column sums, accumulated in
   * double in row order. {@code out} has shape [columns] and must not share memory with this.
   */
  public NDArray sumRows(float alpha, NDArray out, float beta) {
    return MatrixOps.sumRows(this, alpha, out, beta);
  }

  void checkSameShape(NDArray other, String op) {
    checkOpen();
    other.checkOpen();
    if (!shape.equals(other.shape)) {
      throw new IllegalArgumentException(
          op + ": shapes differ: this is " + shape + " but the other array is " + other.shape);
    }
  }

  /** True when both arrays address the very same elements of the same storage, in order. */
  boolean sameLayout(NDArray o) {
    return o.storage == storage && o.offset == offset && Arrays.equals(o.strides, strides);
  }

  /**
   * Walks the storage positions of this array's elements in row-major order, one add per step (no
   * division per element as in flatToIndex). Callers check open and size first.
   */
  final class Walker {
    private final int[] idx = new int[dims.length];
    private long pos = offset;

    int next() {
      int p = (int) pos;
      for (int d = dims.length - 1; d >= 0; d--) {
        if (++idx[d] < dims[d]) {
          pos += strides[d];
          return p;
        }
        pos -= (long) (dims[d] - 1) * strides[d];
        idx[d] = 0;
      }
      return p;
    }
  }

  /** A pointer at this array's first element; valid only until the call returns. */
  FloatPointer ptr() {
    return new FloatPointer(storage.pointer()).position(offset);
  }

  // ---------------------------------------------------------------- lifecycle

  /** Throws {@link IllegalStateException} if this array or its storage has been closed. */
  public void checkOpen() {
    if (closed) {
      throw new IllegalStateException("Use after close: NDArray of shape " + shape + " is closed");
    }
    storage.checkOpen();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (owner) {
      storage.close();
    }
  }

  // ---------------------------------------------------------------- serialization

  /** Writes the contents; throws IllegalStateException if this array is closed. */
  private Object writeReplace() {
    checkOpen();
    return new NDArraySerialForm(shape, toArray());
  }

  private void readObject(ObjectInputStream in) throws InvalidObjectException {
    throw new InvalidObjectException("NDArray is serialized through its NDArraySerialForm proxy");
  }

  @Override
  public String toString() {
    return "NDArray" + shape + (owner ? "" : " view") + (isClosed() ? " (closed)" : "");
  }
}
