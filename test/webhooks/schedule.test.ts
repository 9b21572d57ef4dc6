import { describe, expect, test } from "bun:test";
import { DEFAULT_RETRY_DELAYS_MS, retryDelayMs, retryPolicy } from "@/webhooks/schedule";

describe("retry schedule", () => {
  test("default: 14 attempts; a delivery stays in retry for at least 29 h 51 min and at most 59 h 43 min", () => {
    const policy = retryPolicy();
    expect(policy.maxAttempts).toBe(14);
    const total = DEFAULT_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(total).toBe(214_960_000);
    // Whatever the jitter draws, the whole window of one series lies between half the caps' sum and the sum.
    const window = (random: () => number) => {
      const p = retryPolicy({ random });
      let sum = 0;
      for (let attempt = 1; ; attempt++) {
        const wait = retryDelayMs(p, attempt);
        if (wait === null) return { sum, attempts: attempt };
        sum += wait;
      }
    };
    expect(window(() => 0)).toEqual({ sum: total / 2, attempts: 14 });
    expect(window(() => 0.999999).sum).toBeLessThanOrEqual(total);
    expect(window(() => 0.999999).sum).toBeGreaterThan(total * 0.999);
    // A receiver down for a whole day loses nothing to the dead state, at any draw.
    expect(total / 2).toBeGreaterThan(24 * 3_600_000);
  });

  test("equal jitter: each wait lies in [cap / 2, cap]", () => {
    const low = retryPolicy({ random: () => 0 });
    const high = retryPolicy({ random: () => 0.999999 });
    DEFAULT_RETRY_DELAYS_MS.forEach((cap, i) => {
      expect(retryDelayMs(low, i + 1)).toBe(cap / 2);
      const top = retryDelayMs(high, i + 1) ?? -1;
      expect(top).toBeLessThanOrEqual(cap);
      expect(top).toBeGreaterThan(cap * 0.99);
    });
  });

  test("no retry after the last attempt; the last entry repeats when more attempts are allowed", () => {
    const policy = retryPolicy({ retryDelaysMs: [10, 20], maxAttempts: 5, random: () => 0.5 });
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(policy, n))).toEqual([7, 15, 15, 15, null]);
    expect(retryDelayMs(retryPolicy({ maxAttempts: 1 }), 1)).toBeNull();
  });

  test("invalid overrides fail at construction", () => {
    expect(() => retryPolicy({ maxAttempts: 0 })).toThrow();
    expect(() => retryPolicy({ retryDelaysMs: [], maxAttempts: 2 })).toThrow();
    expect(() => retryPolicy({ retryDelaysMs: [-1] })).toThrow();
  });
});
