/**
 * Retry schedule. Entry k is the longest wait after the k-th failed attempt; the actual wait is drawn
 * uniformly from [entry / 2, entry] ("equal jitter"): spread enough that receivers coming back after
 * an outage are not hit by every queued delivery in the same second, and never short enough to end
 * the retries early. With full jitter ([0, entry]) the whole retry window was itself random, about
 * half the caps' sum on average, so a receiver down for eight hours would have lost about one event
 * in seven to the dead state. The last entry repeats when maxAttempts asks for more.
 * Defaults: 14 attempts; the caps sum to 59 h 42 min 40 s, so a delivery stays pending for at least
 * 29 h 51 min 20 s (a receiver down for a day gets every event) and at most that sum.
 */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [
  10_000, // 10 s
  30_000, // 30 s
  120_000, // 2 min
  600_000, // 10 min
  1_800_000, // 30 min
  3_600_000, // 1 h
  7_200_000, // 2 h
  14_400_000, // 4 h
  28_800_000, // 8 h
  28_800_000, // 8 h
  43_200_000, // 12 h
  43_200_000, // 12 h
  43_200_000, // 12 h
];

export interface RetryPolicy {
  delaysMs: readonly number[];
  maxAttempts: number;
  /** Uniform in [0, 1); injectable so tests can pin the jitter. */
  random: () => number;
}

export function retryPolicy(options: { retryDelaysMs?: readonly number[]; maxAttempts?: number; random?: () => number } = {}): RetryPolicy {
  const delaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const maxAttempts = options.maxAttempts ?? delaysMs.length + 1;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new Error("maxAttempts must be a whole number of at least 1");
  if (maxAttempts > 1 && delaysMs.length === 0) throw new Error("retryDelaysMs needs at least one entry when retries are allowed");
  if (delaysMs.some((d) => !Number.isFinite(d) || d < 0)) throw new Error("retryDelaysMs entries must be 0 or more");
  return { delaysMs, maxAttempts, random: options.random ?? Math.random };
}

/** The wait before the attempt after `failedAttempt` (1-based), or null when that was the last one. */
export function retryDelayMs(policy: RetryPolicy, failedAttempt: number): number | null {
  if (failedAttempt >= policy.maxAttempts) return null;
  const cap = policy.delaysMs[Math.min(failedAttempt, policy.delaysMs.length) - 1] ?? 0;
  return Math.floor(cap / 2 + policy.random() * (cap / 2));
}
