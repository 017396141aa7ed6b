/**
 * The executor side of training: {@link org.sparknet.api.internal.worker.WorkerTasks} (what the
 * Spark tasks run), {@link org.sparknet.api.internal.worker.Worker} (one partition's net across
 * rounds), {@link org.sparknet.api.internal.worker.WorkerRegistry} (the nets of an executor) and
 * {@link org.sparknet.api.internal.worker.WorkerPlan} (what every worker of a trainer runs).
 * <strong>Not API:</strong> anything here may change without notice, and no other module may use it
 * (an architecture test checks).
 */
package org.sparknet.api.internal.worker;
