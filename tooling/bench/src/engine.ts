/**
 * The engine ceiling: an operation run directly on the raw store, in this process, without HTTP,
 * one call after another for a fixed time.
 */
import type { EngineFigures } from './report.js';

export async function measureEngine(
  seconds: number,
  operation: (i: number) => Promise<unknown>,
): Promise<EngineFigures> {
  const latencies: number[] = [];
  const end = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  let i = 0;
  for (let now = process.hrtime.bigint(); now < end; now = process.hrtime.bigint()) {
    await operation(i);
    i += 1;
    latencies.push(Number(process.hrtime.bigint() - now) / 1e6);
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { opsPerSecond: latencies.length / seconds, p50Ms: at(0.5), p99Ms: at(0.99) };
}
