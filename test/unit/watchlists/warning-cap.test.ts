import { describe, expect, test } from "bun:test";
import { capWarnings, warningTotal } from "@/watchlists/warning-cap";

const numbered = (n: number, prefix = "w") => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe("capWarnings and warningTotal", () => {
  test("under the cap nothing changes and the total is the count", () => {
    expect(capWarnings(numbered(3), 3)).toEqual(["w0", "w1", "w2"]);
    expect(warningTotal(numbered(3))).toBe(3);
  });

  test("over the cap the rest are one line, and the total still counts every warning", () => {
    const capped = capWarnings(numbered(1250), 1000);
    expect(capped).toHaveLength(1001);
    expect(capped.at(-1)).toBe("… and 250 more warnings");
    expect(warningTotal(capped)).toBe(1250);
  });

  test("a list merged from two capped parts counts both cap lines, and capping it again keeps the total", () => {
    const merged = [...capWarnings(numbered(12, "a"), 10), ...capWarnings(numbered(7, "b"), 5), "merge note"];
    expect(warningTotal(merged)).toBe(12 + 7 + 1);
    const again = capWarnings(merged, 8);
    expect(again).toEqual([...numbered(8, "a"), "… and 12 more warnings"]);
    expect(warningTotal(again)).toBe(20);
    expect(capWarnings(merged, 100)).toHaveLength(10 + 5 + 1 + 1);
    expect(warningTotal(capWarnings(merged, 100))).toBe(20);
  });
});
