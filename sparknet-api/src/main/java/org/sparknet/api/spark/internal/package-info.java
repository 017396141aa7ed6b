/**
 * Implementation of SparkNet's Spark ML stages: schema checks, the fit and batched inference behind
 * them, and their model files. <strong>Not API:</strong> anything here may change without notice.
 */
package org.sparknet.api.spark.internal;
