// Loaded into the service by bench/soak.ts (node --import, after tsx): measures the event-loop
// delay of the service's own main thread and answers over the IPC channel, so the service itself
// carries no probe. Messages: 'reset' (start a new measuring window), 'report', and 'collect'
// (a report that also gives the live heap after a full GC; needs node --expose-gc).
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface ProbeReport {
  /** Event-loop delay in ms beyond the timer resolution, since the last 'reset'. */
  delay: { p50: number; p99: number; max: number };
  memory: NodeJS.MemoryUsage;
  /** heapUsed after a full GC ('collect' only). */
  liveHeap?: number;
}

const RESOLUTION_MS = 10;

const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
histogram.enable();

// The histogram records whole timer intervals: the resolution itself is not delay.
const delayMs = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);

process.on('message', (message) => {
  if (message === 'reset') histogram.reset();
  if (message !== 'report' && message !== 'collect') return;
  const report: ProbeReport = {
    delay: { p50: delayMs(histogram.percentile(50)), p99: delayMs(histogram.percentile(99)), max: delayMs(histogram.max) },
    memory: process.memoryUsage(),
  };
  if (message === 'collect' && globalThis.gc) {
    globalThis.gc();
    report.liveHeap = process.memoryUsage().heapUsed;
  }
  process.send?.(report);
});
// Adding the listener refs the channel; the probe must not keep the service alive.
process.channel?.unref();
