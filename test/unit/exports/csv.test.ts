import { describe, expect, test } from "bun:test";
import Papa from "papaparse";
import { toCsv } from "@/exports/csv";

/** toCsv, read back with papaparse as an independent reader: quoting, types and the formula guard. */
function readBack(csv: string): string[][] {
  const parsed = Papa.parse<string[]>(csv, { delimiter: ",", newline: "\r\n", skipEmptyLines: true });
  expect(parsed.errors).toEqual([]);
  return parsed.data;
}

describe("toCsv", () => {
  test("a header line, CRLF line ends and a final CRLF", () => {
    expect(toCsv(["a", "b"], [["1", "2"]])).toBe("a,b\r\n1,2\r\n");
  });

  test("no rows: the header line alone, not followed by an empty record", () => {
    // "a,b\r\n\r\n" (papaparse's own line break for no data, then ours) reads as one record of one
    // empty field in a reader that keeps empty lines, such as Python's csv module.
    expect(toCsv(["a", "b"], [])).toBe("a,b\r\n");
  });

  test("commas, quotes and line breaks inside cells survive a round trip", () => {
    const tricky = ['Smith, John', 'He said "hi"', "line one\nline two", "tab\tinside", "  padded  ", "ünïcødé – 漢字"];
    const rows = readBack(toCsv(["value"], tricky.map((t) => [t])));
    expect(rows.slice(1).map((r) => r[0])).toEqual(tricky);
  });

  test("null and undefined become empty cells; numbers and booleans stay as written; objects become JSON", () => {
    const rows = readBack(toCsv(["n", "u", "num", "neg", "bool", "obj"], [[null, undefined, 42, -7.5, false, { label: "x", list: [1, 2] }]]));
    expect(rows[1]).toEqual(["", "", "42", "-7.5", "false", '{"label":"x","list":[1,2]}']);
  });

  test.each([
    ["=", "=HYPERLINK(\"http://evil.example\",\"x\")"],
    ["+", "+1+1"],
    ["-", "-2+3"],
    ["@", "@SUM(1)"],
    ["tab", "\t=1+1"],
    ["carriage return", "\r=1+1"],
  ])("a string starting with %s is prefixed with a quote and otherwise unchanged", (_lead, payload) => {
    const rows = readBack(toCsv(["cell"], [[payload]]));
    expect(rows[1]?.[0]).toBe(`'${payload}`);
  });

  test("formula characters later in a cell, and negative numbers typed as numbers, are left alone", () => {
    const rows = readBack(toCsv(["a", "b", "c"], [["total = 1+1", -12, "a@b.example"]]));
    expect(rows[1]).toEqual(["total = 1+1", "-12", "a@b.example"]);
  });

  test("a cell holding a semicolon or a tab is quoted, so a ';'- or tab-separated reader keeps it whole", () => {
    const csv = toCsv(["ref", "name"], [[";=1+1", "a\t=2+2"], ["plain", "x"]]);
    expect(csv).toBe('ref,name\r\n";=1+1","a\t=2+2"\r\nplain,x\r\n');
    expect(readBack(csv)[1]).toEqual([";=1+1", "a\t=2+2"]);
  });

  test("an empty export still has its header", () => {
    expect(readBack(toCsv(["id", "action"], []))).toEqual([["id", "action"]]);
  });
});
