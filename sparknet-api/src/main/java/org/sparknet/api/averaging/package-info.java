/**
 * The arithmetic of averaging weights ({@link org.sparknet.api.averaging.Averager}) and the 16-bit
 * formats workers may send their offsets in ({@link org.sparknet.api.averaging.Compression}):
 * public, used by the trainer, the {@code SolverGroup} of the SPI and benchmarks alike.
 */
package org.sparknet.api.averaging;
