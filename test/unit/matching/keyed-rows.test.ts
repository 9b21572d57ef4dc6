import { describe, expect, test } from "bun:test";
import { KeyedRows } from "@/matching/growable";

describe("KeyedRows", () => {
  test("returns each key's ids in the order they were added, and nothing for an unknown key", () => {
    const rows = new KeyedRows();
    rows.add("mhmd", 7);
    rows.add("ali", 3);
    rows.add("mhmd", 2);
    rows.add("mhmd", 9);
    rows.finish();
    expect([...rows.get("mhmd")]).toEqual([7, 2, 9]);
    expect([...rows.get("ali")]).toEqual([3]);
    expect(rows.get("omar").length).toBe(0);
  });

  test("holds thousands of keys whose rows grow past the initial buffers", () => {
    const rows = new KeyedRows();
    for (let id = 0; id < 20_000; id++) rows.add(`k${id % 3_000}`, id);
    rows.finish();
    expect([...rows.get("k0")].slice(0, 3)).toEqual([0, 3_000, 6_000]);
    expect(rows.get("k2999").length).toBe(6);
    expect(rows.get("k1500").every((id) => id % 3_000 === 1_500)).toBe(true);
  });

  test("refuses additions once finished and reads before, so a reader never sees half-packed rows", () => {
    const unfinished = new KeyedRows();
    unfinished.add("early", 1);
    expect(() => unfinished.get("early")).toThrow(/before finish/);
    const rows = unfinished.finish();
    expect(() => rows.add("late", 1)).toThrow(/already finished/);
  });
});
