/**
 * The Spark settings that run SparkNet on a cluster manager: {@link
 * org.sparknet.apps.cluster.KubernetesSettings} for executor pods built from the images in {@code
 * docker/} (docs/cluster-kubernetes.md).
 */
package org.sparknet.apps.cluster;
