/**
 * Where nets run: {@link org.sparknet.api.device.TaskDevices} turns a definition's device rule
 * ("gpu", "auto") into the concrete device of a Spark task, from the GPUs Spark assigned to it.
 */
package org.sparknet.api.device;
