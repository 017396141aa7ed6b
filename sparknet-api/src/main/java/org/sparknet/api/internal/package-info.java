/**
 * Implementation details of SparkNet's Spark integration. <strong>Not API:</strong> classes here
 * may change or disappear in any release; only their effects (for example, which classes Kryo can
 * ship) are documented.
 */
package org.sparknet.api.internal;
