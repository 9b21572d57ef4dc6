import { describe, expect, test } from "bun:test";
import { DEFAULT_RETRY_DELAYS_MS, retryDelayMs, retryPolicy } from "@/webhooks/schedule";

describe("retry schedule", () => {
  test("default: 11 attempts whose longest waits add up to just under 24 h", () => {
    const policy = retryPolicy();
    expect(policy.maxAttempts).toBe(11);
    const total = DEFAULT_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(total).toBe(85_360_000);
    expect(total).toBeLessThan(24 * 3_600_000);
  });

  test("full jitter: each wait lies in [0, cap], cap at random → 1", () => {
    const low = retryPolicy({ random: () => 0 });
    const high = retryPolicy({ random: () => 0.999999 });
    DEFAULT_RETRY_DELAYS_MS.forEach((cap, i) => {
      expect(retryDelayMs(low, i + 1)).toBe(0);
      const top = retryDelayMs(high, i + 1) ?? -1;
      expect(top).toBeLessThanOrEqual(cap);
      expect(top).toBeGreaterThan(cap * 0.99);
    });
  });

  test("no retry after the last attempt; the last entry repeats when more attempts are allowed", () => {
    const policy = retryPolicy({ retryDelaysMs: [10, 20], maxAttempts: 5, random: () => 0.5 });
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(policy, n))).toEqual([5, 10, 10, 10, null]);
    expect(retryDelayMs(retryPolicy({ maxAttempts: 1 }), 1)).toBeNull();
  });

  test("invalid overrides fail at construction", () => {
    expect(() => retryPolicy({ maxAttempts: 0 })).toThrow();
    expect(() => retryPolicy({ retryDelaysMs: [], maxAttempts: 2 })).toThrow();
    expect(() => retryPolicy({ retryDelaysMs: [-1] })).toThrow();
  });
});
