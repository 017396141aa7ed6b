/**
 * The {@link org.sparknet.api.data.DataFormat}s SparkNet ships, one class a format, listed in
 * {@code META-INF/services/org.sparknet.api.data.DataFormat}: each opens its data on the driver and
 * reads it on the executors through the loaders of {@code org.sparknet.apps.data}.
 */
package org.sparknet.apps.data.formats;
