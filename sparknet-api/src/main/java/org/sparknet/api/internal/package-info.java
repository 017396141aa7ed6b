/**
 * Implementation of the trainer: executor-side net registry, wire formats, checkpoints. Not API:
 * anything here may change without notice.
 */
package org.sparknet.api.internal;
