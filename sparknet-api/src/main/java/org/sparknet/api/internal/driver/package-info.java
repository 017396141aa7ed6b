/**
 * The trainer's driver side, behind {@code org.sparknet.api.train.SparkNetTrainer}: {@link
 * org.sparknet.api.internal.driver.TrainerState} (what the driver knows between rounds), {@link
 * org.sparknet.api.internal.driver.DriverRound} (one round: broadcast, job, combine), the cached
 * data ({@link org.sparknet.api.internal.driver.PackedData}), the test job, the jobs that visit
 * every worker outside a round and the metrics file. <strong>Not API:</strong> anything here may
 * change without notice, and no other module may use it (an architecture test checks).
 */
package org.sparknet.api.internal.driver;
