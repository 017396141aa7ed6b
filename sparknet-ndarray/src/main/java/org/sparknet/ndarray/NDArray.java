package org.sparknet.ndarray;

import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.nio.FloatBuffer;
import java.util.Arrays;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.openblas.global.openblas;

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
    checkOpen();
    if (destOffset < 0 || (long) destOffset + size > dest.length) {
      throw new IllegalArgumentException(
          "Array of shape "
              + shape
              + " ("
              + size
              + " floats) does not fit in a float["
              + dest.length
              + "] at offset "
              + destOffset);
    }
    if (size == 0) {
      return;
    }
    if (isContiguous()) {
      FloatBuffer b = storage.buffer().duplicate();
      b.position((int) offset);
      b.get(dest, destOffset, (int) size);
    } else {
      FloatBuffer b = storage.buffer();
      Walker w = new Walker();
      for (int i = 0, n = (int) size; i < n; i++) {
        dest[destOffset + i] = b.get(w.next());
      }
    }
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
    checkOpen();
    if (srcOffset < 0 || (long) srcOffset + size > src.length) {
      throw new IllegalArgumentException(
          "Array of shape "
              + shape
              + " needs "
              + size
              + " floats but float["
              + src.length
              + "] from offset "
              + srcOffset
              + " has fewer");
    }
    if (size == 0) {
      return;
    }
    if (isContiguous()) {
      FloatBuffer b = storage.buffer().duplicate();
      b.position((int) offset);
      b.put(src, srcOffset, (int) size);
    } else {
      FloatBuffer b = storage.buffer();
      Walker w = new Walker();
      for (int i = 0, n = (int) size; i < n; i++) {
        b.put(w.next(), src[srcOffset + i]);
      }
    }
  }

  /** Copies another array of the same shape into this one. */
  public void copyFrom(NDArray src) {
    checkSameShape(src, "copyFrom");
    if (size == 0 || src.sameLayout(this)) {
      return;
    }
    if (src.storage == storage) {
      copyFrom(src.toArray(), 0); // overlapping views: read all of src before writing
    } else if (isContiguous() && src.isContiguous()) {
      openblas.cblas_scopy((int) size, src.ptr(), 1, ptr(), 1);
    } else {
      FloatBuffer from = src.storage.buffer();
      FloatBuffer to = storage.buffer();
      Walker r = src.new Walker();
      Walker w = new Walker();
      for (long i = 0; i < size; i++) {
        to.put(w.next(), from.get(r.next()));
      }
    }
  }

  // ---------------------------------------------------------------- arithmetic (in place)

  /** Sets every element to {@code value}. */
  public NDArray fill(float value) {
    checkOpen();
    FloatBuffer b = storage.buffer();
    if (isContiguous()) {
      for (int i = (int) offset, end = (int) (offset + size); i < end; i++) {
        b.put(i, value);
      }
    } else {
      Walker w = new Walker();
      for (long i = 0; i < size; i++) {
        b.put(w.next(), value);
      }
    }
    return this;
  }

  /** this *= alpha. */
  public NDArray scale(float alpha) {
    checkOpen();
    if (size == 0) {
      return this;
    }
    if (isContiguous()) {
      openblas.cblas_sscal((int) size, alpha, ptr(), 1);
    } else {
      FloatBuffer b = storage.buffer();
      Walker w = new Walker();
      for (long i = 0; i < size; i++) {
        int p = w.next();
        b.put(p, b.get(p) * alpha);
      }
    }
    return this;
  }

  /** this += other. */
  public NDArray add(NDArray other) {
    return addScaled(1f, other);
  }

  /** this += alpha * other (BLAS axpy). */
  public NDArray addScaled(float alpha, NDArray other) {
    checkSameShape(other, "addScaled");
    if (size == 0) {
      return this;
    }
    if (other.storage == storage && !other.sameLayout(this)) {
      // Overlapping views: read all of other before writing (same layout is safe element-wise).
      try (NDArray copy = NDArray.create(other.toArray(), dims)) {
        return addScaled(alpha, copy);
      }
    }
    if (isContiguous() && other.isContiguous()) {
      openblas.cblas_saxpy((int) size, alpha, other.ptr(), 1, ptr(), 1);
    } else {
      FloatBuffer x = other.storage.buffer();
      FloatBuffer y = storage.buffer();
      Walker r = other.new Walker();
      Walker w = new Walker();
      for (long i = 0; i < size; i++) {
        int p = w.next();
        y.put(p, y.get(p) + alpha * x.get(r.next()));
      }
    }
    return this;
  }

  /**
   * Sum of element-wise products, accumulated in double in row-major order (a plain loop:
   * OpenBLAS's {@code cblas_dsdot} was measured to accumulate in float on this build).
   */
  public double dot(NDArray other) {
    checkSameShape(other, "dot");
    if (size == 0) {
      return 0;
    }
    FloatBuffer x = storage.buffer();
    FloatBuffer y = other.storage.buffer();
    double s = 0;
    if (isContiguous() && other.isContiguous()) {
      int i = (int) offset;
      int j = (int) other.offset;
      for (int end = (int) (offset + size); i < end; i++, j++) {
        s += (double) x.get(i) * y.get(j);
      }
      return s;
    }
    Walker a = new Walker();
    Walker b = other.new Walker();
    for (long i = 0; i < size; i++) {
      s += (double) x.get(a.next()) * y.get(b.next());
    }
    return s;
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
    checkOpen();
    a.checkOpen();
    b.checkOpen();
    checkMatrix(a, "a");
    checkMatrix(b, "b");
    checkMatrix(this, "the result (this)");
    int m = transA ? a.dims[1] : a.dims[0];
    int k = transA ? a.dims[0] : a.dims[1];
    int kb = transB ? b.dims[1] : b.dims[0];
    int n = transB ? b.dims[0] : b.dims[1];
    String ops =
        (transA ? "a^T " : "a ")
            + a.shape
            + " x "
            + (transB ? "b^T " : "b ")
            + b.shape
            + " -> this "
            + shape;
    if (k != kb) {
      throw new IllegalArgumentException(
          "gemm: inner dimensions differ ("
              + k
              + " vs "
              + kb
              + ") in "
              + ops
              + "; transpose an operand or fix its shape");
    }
    if (dims[0] != m || dims[1] != n) {
      throw new IllegalArgumentException(
          "gemm: the result must be [" + m + ", " + n + "] but is " + shape + " in " + ops);
    }
    if (a.storage == storage || b.storage == storage) {
      throw new IllegalArgumentException(
          "gemm: the result shares memory with an operand in "
              + ops
              + "; write into another array");
    }
    if (size == 0) {
      return this;
    }
    if (k == 0) {
      return scale(beta); // empty sum: BLAS implementations disagree on lda for k = 0
    }
    openblas.cblas_sgemm(
        openblas.CblasRowMajor,
        transA ? openblas.CblasTrans : openblas.CblasNoTrans,
        transB ? openblas.CblasTrans : openblas.CblasNoTrans,
        m,
        n,
        k,
        alpha,
        a.ptr(),
        a.dims[1],
        b.ptr(),
        b.dims[1],
        beta,
        ptr(),
        n);
    return this;
  }

  /** A new owning array {@code a b} (OpenBLAS); see {@link #gemm}. */
  public static NDArray matmul(NDArray a, NDArray b) {
    checkMatrix(a, "a");
    checkMatrix(b, "b");
    NDArray c = zeros(a.dims[0], b.dims[1]);
    try {
      return c.gemm(1f, a, false, b, false, 0f);
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
  }

  private static void checkMatrix(NDArray x, String role) {
    x.checkOpen();
    if (x.dims.length != 2) {
      throw new IllegalArgumentException(
          "gemm: " + role + " must be a matrix (rank 2) but has shape " + x.shape);
    }
    if (!x.isContiguous()) {
      throw new IllegalArgumentException(
          "gemm: "
              + role
              + " of shape "
              + x.shape
              + " is a strided view (strides "
              + Arrays.toString(x.strides)
              + "); BLAS needs row-major contiguous memory, copy it first");
    }
  }

  /**
   * Applies the logistic function {@code 1 / (1 + exp(-x))} to every element, in place. A plain
   * loop over the memory: OpenBLAS has no element-wise transcendental functions, and the JIT's
   * {@code Math.exp} costs less than a JNI call per block would save.
   */
  public NDArray sigmoid() {
    checkOpen();
    FloatBuffer buf = storage.buffer();
    if (isContiguous()) {
      for (int i = (int) offset, end = (int) (offset + size); i < end; i++) {
        buf.put(i, logistic(buf.get(i)));
      }
    } else {
      Walker w = new Walker();
      for (long i = 0; i < size; i++) {
        int p = w.next();
        buf.put(p, logistic(buf.get(p)));
      }
    }
    return this;
  }

  private static float logistic(float x) {
    return (float) (1.0 / (1.0 + Math.exp(-x)));
  }

  /**
   * Adds {@code row} (shape [columns]) to every row of this matrix, in place (a bias); a plain loop
   * over contiguous memory (one axpy per row would cost a JNI call per row).
   */
  public NDArray addRowVector(NDArray row) {
    checkMatrix(this, "addRowVector's target");
    row.checkOpen();
    if (row.dims.length != 1 || row.dims[0] != dims[1]) {
      throw new IllegalArgumentException(
          "addRowVector: the row must have shape [" + dims[1] + "] but has " + row.shape);
    }
    float[] r = row.toArray(); // also copes with a row that overlaps this array
    FloatBuffer buf = storage.buffer();
    int cols = dims[1];
    for (int i = 0, p = (int) offset; i < dims[0]; i++) {
      for (int j = 0; j < cols; j++, p++) {
        buf.put(p, buf.get(p) + r[j]);
      }
    }
    return this;
  }

  /**
   * {@code out = alpha * (sum of this matrix's rows) + beta * out}: the column sums, accumulated in
   * double in row order. {@code out} has shape [columns] and must not share memory with this.
   */
  public NDArray sumRows(float alpha, NDArray out, float beta) {
    checkMatrix(this, "sumRows' source");
    out.checkOpen();
    if (out.dims.length != 1 || out.dims[0] != dims[1]) {
      throw new IllegalArgumentException(
          "sumRows: the output must have shape [" + dims[1] + "] but has " + out.shape);
    }
    if (out.storage == storage) {
      throw new IllegalArgumentException("sumRows: the output shares memory with the source");
    }
    int cols = dims[1];
    double[] acc = new double[cols];
    FloatBuffer buf = storage.buffer();
    for (int i = 0, p = (int) offset; i < dims[0]; i++) {
      for (int j = 0; j < cols; j++, p++) {
        acc[j] += buf.get(p);
      }
    }
    for (int j = 0; j < cols; j++) {
      float old = beta == 0f ? 0f : out.get(j);
      out.set((float) (alpha * acc[j] + beta * old), j);
    }
    return out;
  }

  private void checkSameShape(NDArray other, String op) {
    checkOpen();
    other.checkOpen();
    if (!shape.equals(other.shape)) {
      throw new IllegalArgumentException(
          op + ": shapes differ: this is " + shape + " but the other array is " + other.shape);
    }
  }

  /** True when both arrays address the very same elements of the same storage, in order. */
  private boolean sameLayout(NDArray o) {
    return o.storage == storage && o.offset == offset && Arrays.equals(o.strides, strides);
  }

  /**
   * Walks the storage positions of this array's elements in row-major order, one add per step (no
   * division per element as in flatToIndex). Callers check open and size first.
   */
  private final class Walker {
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
  private FloatPointer ptr() {
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

  /** Serialization proxy: the shape and a heap copy of the elements, row-major. */
  private static final class SerialForm implements Serializable {
    private static final long serialVersionUID = 1L;
    private final Shape shape;
    private final float[] data;

    SerialForm(Shape shape, float[] data) {
      this.shape = shape;
      this.data = data;
    }

    /** A new owning array: the receiver must close it. */
    private Object readResolve() throws InvalidObjectException {
      if (shape == null || data == null || data.length != shape.size()) {
        throw new InvalidObjectException(
            "Serialized NDArray of shape "
                + shape
                + " carries "
                + (data == null ? "no data" : data.length + " floats"));
      }
      return NDArray.create(data, shape.dims());
    }
  }

  /** Writes the contents; throws IllegalStateException if this array is closed. */
  private Object writeReplace() {
    checkOpen();
    return new SerialForm(shape, toArray());
  }

  private void readObject(ObjectInputStream in) throws InvalidObjectException {
    throw new InvalidObjectException("NDArray is serialized through its SerialForm proxy");
  }

  @Override
  public String toString() {
    return "NDArray" + shape + (owner ? "" : " view") + (isClosed() ? " (closed)" : "");
  }
}
