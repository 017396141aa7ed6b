/**
 * The trainer's machinery, behind {@code org.sparknet.api.train.SparkNetTrainer}. Driver side:
 * {@link org.sparknet.api.internal.TrainerState} (what the driver knows between rounds), {@link
 * org.sparknet.api.internal.DriverRound} (one round: broadcast, job, combine), {@link
 * org.sparknet.api.internal.PackedData}, {@link org.sparknet.api.internal.TestJob}, {@link
 * org.sparknet.api.internal.CheckpointDir} and {@link org.sparknet.api.internal.MetricsLog}.
 * Executor side: {@link org.sparknet.api.internal.WorkerTasks} (what the tasks run), {@link
 * org.sparknet.api.internal.Worker} (one partition's net across rounds) and {@link
 * org.sparknet.api.internal.WorkerRegistry}. Between them: {@link
 * org.sparknet.api.internal.WorkerPlan}, {@link org.sparknet.api.internal.RoundOrders} and {@link
 * org.sparknet.api.internal.PartitionResult}. <strong>Not API:</strong> anything here may change
 * without notice, and no other module may use it (an architecture test checks).
 */
package org.sparknet.api.internal;
