package org.sparknet.bench.loop;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The largest heap this JVM held right after a garbage collection, summed over the heap pools: the
 * live data's peak, which unlike the pools' peak usage does not count garbage waiting for the next
 * collection (how much of that there is depends on how the collector sized the young generation).
 * Listens to every collector's notifications from {@link #start}.
 */
final class HeapAfterGc {
  private final AtomicLong peak = new AtomicLong();
  private final AtomicLong collections = new AtomicLong();
  private final Set<String> heapPools = new HashSet<>();

  private HeapAfterGc() {
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        heapPools.add(p.getName());
      }
    }
  }

  static HeapAfterGc start() {
    HeapAfterGc h = new HeapAfterGc();
    for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      ((NotificationEmitter) gc)
          .addNotificationListener(
              (n, handback) -> {
                if (n.getType()
                    .equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
                  h.record(GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData()));
                }
              },
              null,
              null);
    }
    return h;
  }

  private void record(GarbageCollectionNotificationInfo info) {
    long used = 0;
    for (var e : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
      if (heapPools.contains(e.getKey())) {
        MemoryUsage u = e.getValue();
        used += u.getUsed();
      }
    }
    collections.incrementAndGet();
    peak.accumulateAndGet(used, Math::max);
  }

  /** Starts a new peak (the collections seen so far no longer count). */
  void reset() {
    peak.set(0);
    collections.set(0);
  }

  double peakMb() {
    return peak.get() / 1048576.0;
  }

  long collections() {
    return collections.get();
  }
}
