/**
 * Kryo serializers for {@link org.sparknet.ndarray.Shape} and {@link org.sparknet.ndarray.NDArray}.
 * Kryo is a {@code provided} dependency: Spark brings it at run time, and nothing else in this
 * module loads these classes.
 *
 * <p>Wire format: a shape is its rank then each extent (variable-length ints); an array is its
 * shape then its elements as 4-byte floats in row-major order. Native memory never crosses the
 * wire.
 */
package org.sparknet.ndarray.kryo;
