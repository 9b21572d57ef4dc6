import { describe, expect, test } from "bun:test";
import { signTestP } from "../../../bench/lib/stats";

describe("signTestP (bench/ab.ts's paired verdicts)", () => {
  test("matches the binomial tails for eight pairs", () => {
    expect(signTestP(8, 0)).toBeCloseTo(2 / 256, 10);
    expect(signTestP(0, 8)).toBeCloseTo(2 / 256, 10);
    expect(signTestP(7, 1)).toBeCloseTo((2 * 9) / 256, 10);
    expect(signTestP(6, 2)).toBeCloseTo((2 * 37) / 256, 10);
  });

  test("an even split, or no pairs at all, is no evidence", () => {
    expect(signTestP(4, 4)).toBe(1);
    expect(signTestP(0, 0)).toBe(1);
  });
});
