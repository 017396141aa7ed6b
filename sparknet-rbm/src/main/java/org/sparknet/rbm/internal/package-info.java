/**
 * Not API: the arithmetic of the RBM engine (CD-k statistics over native arrays). May change
 * without notice; use {@link org.sparknet.rbm.RbmNet} through the {@code Net} SPI.
 */
package org.sparknet.rbm.internal;
