/**
 * Implementation of the trainer and of SparkNet's Spark integration: executor-side net registry,
 * wire formats and Kryo registration, checkpoints. <strong>Not API:</strong> anything here may
 * change without notice.
 */
package org.sparknet.api.internal;
