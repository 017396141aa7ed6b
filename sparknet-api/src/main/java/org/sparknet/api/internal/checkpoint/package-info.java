/**
 * A trainer's checkpoint ({@link org.sparknet.api.internal.checkpoint.Checkpoint}) and the
 * directory that keeps them on a Hadoop file system ({@link
 * org.sparknet.api.internal.checkpoint.CheckpointDir}). <strong>Not API:</strong> anything here may
 * change without notice, and no other module may use it (an architecture test checks).
 */
package org.sparknet.api.internal.checkpoint;
