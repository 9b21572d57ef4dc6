import { readFileSync } from "node:fs";

/** Small measurement helpers shared by the benchmarks. */
export function percentile(sortedMs: readonly number[], p: number): number {
  if (sortedMs.length === 0) return Number.NaN;
  const i = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[i]!;
}

export interface LatencySummary {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
  readonly perSecond: number;
}

/** Runs `fn` once per item, timing each call; returns latency percentiles and throughput. */
export function timeEach<T>(items: readonly T[], fn: (item: T) => unknown): LatencySummary {
  const times: number[] = [];
  const started = performance.now();
  for (const item of items) {
    const t = performance.now();
    fn(item);
    times.push(performance.now() - t);
  }
  const total = performance.now() - started;
  times.sort((a, b) => a - b);
  return {
    n: items.length,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    mean: total / Math.max(1, items.length),
    perSecond: (items.length / total) * 1000,
  };
}

/** Resident set size in MiB after a full collection. */
export function rssMiB(): number {
  Bun.gc(true);
  return process.memoryUsage().rss / 1048576;
}

export function ratio(a: number, b: number): string {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return "n/a";
  return `${(a / b).toFixed(1)}×`;
}

/** Peak RSS of this process in MiB (VmHWM), else getrusage's maxRSS. */
export function peakRssMiB(): number {
  try {
    const kb = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (kb) return Number(kb) / 1024;
  } catch {
    // Not Linux: fall through.
  }
  return process.resourceUsage().maxRSS / 1024;
}

/**
 * Two-sided sign test over paired comparisons: the chance of a split at least this uneven (this
 * many pairs lower, this many higher; ties left out) if either way were equally likely in each pair.
 */
export function signTestP(lower: number, higher: number): number {
  const n = lower + higher;
  if (n === 0) return 1;
  const k = Math.min(lower, higher);
  let tail = 0;
  let choose = 1; // C(n, i)
  for (let i = 0; i <= k; i++) {
    tail += choose;
    choose = (choose * (n - i)) / (i + 1);
  }
  return Math.min(1, (2 * tail) / 2 ** n);
}
