/**
 * What crosses the wire between driver and executors, and how: the flat form of weights ({@link
 * org.sparknet.api.internal.wire.WeightLayout}, {@link
 * org.sparknet.api.internal.wire.FlatWeights}), a round's orders and results ({@link
 * org.sparknet.api.internal.wire.RoundOrders}, {@link
 * org.sparknet.api.internal.wire.PartitionResult}, {@link
 * org.sparknet.api.internal.wire.RoundTotals}), the Kryo registrations and serializers, and the
 * hand-over by reference in local mode. Depends on no other internal package. <strong>Not
 * API:</strong> anything here may change without notice, and no other module may use it (an
 * architecture test checks).
 */
package org.sparknet.api.internal.wire;
