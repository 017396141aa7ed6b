/**
 * The averaging rules ({@link org.sparknet.api.internal.averaging.AveragingStrategy}): each owns
 * its worker side, its driver side and its checkpoint state; the arithmetic they share is {@link
 * org.sparknet.api.averaging.Averager}. <strong>Not API:</strong> anything here may change without
 * notice, and no other module may use it (an architecture test checks).
 */
package org.sparknet.api.internal.averaging;
