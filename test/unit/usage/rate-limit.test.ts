import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "@/config";
import { MAX_BULK_ROWS } from "@/screening/subject";
import type { Db } from "@/storage/db";
import { type Bucket, rateLimitOf, takeTokens, withAdmittedScreens } from "@/usage/rate-limit";

const LIMIT = { screensPerSecond: 10, burst: 5 };

describe("takeTokens (the token bucket)", () => {
  test("a full bucket admits up to its burst at once, then refuses with the wait for the missing tokens", () => {
    const bucket: Bucket = { tokens: 5, atMs: 0 };
    for (let i = 0; i < 5; i++) expect(takeTokens(bucket, LIMIT, 1, 0)).toEqual({ admitted: true });
    expect(takeTokens(bucket, LIMIT, 1, 0)).toEqual({ admitted: false, available: 0, waitMs: 100 });
    expect(takeTokens(bucket, LIMIT, 3, 0)).toEqual({ admitted: false, available: 0, waitMs: 300 });
  });

  test("it refills at the rate, never past the burst", () => {
    const bucket: Bucket = { tokens: 0, atMs: 1_000 };
    expect(takeTokens(bucket, LIMIT, 1, 1_050)).toEqual({ admitted: false, available: 0, waitMs: 50 });
    expect(takeTokens(bucket, LIMIT, 1, 1_100)).toEqual({ admitted: true });
    // An hour idle: the bucket holds its burst, not 36,000 screens.
    expect(takeTokens(bucket, LIMIT, 6, 3_601_100)).toEqual({ admitted: false, available: 5, waitMs: null });
    expect(takeTokens(bucket, LIMIT, 5, 3_601_100)).toEqual({ admitted: true });
    expect(bucket.tokens).toBe(0);
  });

  test("more than the burst never fits (no wait), and a refusal takes nothing", () => {
    const bucket: Bucket = { tokens: 5, atMs: 0 };
    expect(takeTokens(bucket, LIMIT, 6, 0)).toEqual({ admitted: false, available: 5, waitMs: null });
    expect(bucket.tokens).toBe(5);
  });

  test("a clock that steps back refills nothing and takes nothing away", () => {
    const bucket: Bucket = { tokens: 2, atMs: 500 };
    expect(takeTokens(bucket, LIMIT, 3, 400)).toEqual({ admitted: false, available: 2, waitMs: 100 });
    expect(bucket.tokens).toBe(2);
  });
});

describe("rateLimit configuration", () => {
  test("off by default", () => {
    expect(rateLimitOf(loadConfig({ env: {} }))).toBeNull();
  });

  test("from the environment; without a burst, a full bulk fits in the default one", () => {
    const config = loadConfig({ env: { AML_RATE_LIMIT_SCREENS_PER_SECOND: "50" } });
    expect(rateLimitOf(config)).toEqual({ screensPerSecond: 50, burst: MAX_BULK_ROWS });
    expect(rateLimitOf(loadConfig({ env: { AML_RATE_LIMIT_SCREENS_PER_SECOND: "2500" } }))).toEqual({ screensPerSecond: 2500, burst: 2500 });
    expect(rateLimitOf(loadConfig({ env: { AML_RATE_LIMIT_SCREENS_PER_SECOND: "0.5", AML_RATE_LIMIT_BURST: "3" } }))).toEqual({ screensPerSecond: 0.5, burst: 3 });
  });

  test("a rate of 0, a burst of 0, a fractional burst, a burst without a rate or an unknown key is refused at start", () => {
    expect(() => loadConfig({ env: { AML_RATE_LIMIT_SCREENS_PER_SECOND: "0" } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { AML_RATE_LIMIT_SCREENS_PER_SECOND: "5", AML_RATE_LIMIT_BURST: "0" } })).toThrow(/rateLimit\.burst/);
    expect(() => loadConfig({ env: { AML_RATE_LIMIT_SCREENS_PER_SECOND: "5", AML_RATE_LIMIT_BURST: "2.5" } })).toThrow(/rateLimit\.burst/);
    expect(() => loadConfig({ env: { AML_RATE_LIMIT_BURST: "100" } })).toThrow(/a burst needs rateLimit\.screensPerSecond/);
    expect(() => loadConfig({ flags: { rateLimit: { perSecond: 5 } } })).toThrow(ConfigError);
  });
});

describe("withAdmittedScreens", () => {
  // The buckets are kept per connection; any object stands in for one here.
  const deps = () => ({ db: {} as unknown as Db, config: { rateLimit: { screensPerSecond: 0.001, burst: 4 } } });

  test("a screen that throws gives its tokens back", async () => {
    const d = deps();
    await expect(withAdmittedScreens(d, "t", 3, async () => Promise.reject(new Error("commit refused")))).rejects.toThrow("commit refused");
    expect(await withAdmittedScreens(d, "t", 4, async () => "all four")).toBe("all four");
    await expect(withAdmittedScreens(d, "t", 1, async () => "none left")).rejects.toMatchObject({ code: "RATE_LIMITED" });
  });

  test("giveBack returns unused tokens, never more than were taken", async () => {
    const d = deps();
    await withAdmittedScreens(d, "t", 3, async (giveBack) => {
      giveBack(2);
      giveBack(5);
    });
    expect(await withAdmittedScreens(d, "t", 4, async () => "full again")).toBe("full again");
  });

  test("off: runs the screen, whatever the count", async () => {
    const off = { db: {} as unknown as Db, config: { rateLimit: { screensPerSecond: null, burst: null } } };
    expect(await withAdmittedScreens(off, "t", 1_000_000, async () => "ran")).toBe("ran");
  });
});
