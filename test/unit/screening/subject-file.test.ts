import { describe, expect, test } from "bun:test";
import { parseSubjectFile, type SubjectFileRow } from "@/screening/subject-file";

/** The refusal a row carries in place of its subject. */
function messageOf(row: SubjectFileRow | undefined): string {
  const input = row?.input;
  if (!(input instanceof Error)) throw new Error(`expected a refused row, got ${JSON.stringify(input)}`);
  return input.message;
}

/** A JSONL subjects file (`aml screen --file`) follows the HTTP body's rules line by line (http/media.ts). */
describe("parseSubjectFile, JSON Lines", () => {
  test("a line that escapes a lone surrogate is refused naming the field; the other lines stand", () => {
    const text = ['{"fullName":"Ada Example"}', '{"fullName":"Boris \\ud800 Quillfeather"}', '{"fullName":"Cy","aliases":["ok","x\\uDC00"]}'].join("\n");
    const { rows } = parseSubjectFile(text, "jsonl");
    expect(rows[0]?.input).toEqual({ fullName: "Ada Example" });
    expect(rows[1]?.input).toBeInstanceOf(Error);
    expect(messageOf(rows[1])).toStartWith("line 2 is not valid JSON text: fullName escapes half a UTF-16 surrogate pair");
    expect(messageOf(rows[2])).toContain("line 3 is not valid JSON text: aliases[1] escapes half");
  });

  test("an escaped pair and an escaped backslash before u are read as sent", () => {
    const { rows } = parseSubjectFile('{"fullName":"Ada \\ud83d\\ude00","userReference":"\\\\ud800"}', "jsonl");
    expect(rows[0]?.input).toEqual({ fullName: "Ada 😀", userReference: "\\ud800" });
  });

  test("a repeated name is still refused first", () => {
    const { rows } = parseSubjectFile('{"fullName":"A\\ud800","fullName":"B"}', "jsonl");
    expect(messageOf(rows[0])).toBe('line 1 names "fullName" twice in one object (at fullName)');
  });
});

describe("parseSubjectFile, CSV", () => {
  test("a file of one column reads without a warning: there is no delimiter to detect", () => {
    const { rows, warnings } = parseSubjectFile("fullName\nVladimir Putin\nAda Example\n", "csv");
    expect(rows.map((r) => r.input)).toEqual([expect.objectContaining({ fullName: "Vladimir Putin" }), expect.objectContaining({ fullName: "Ada Example" })]);
    expect(warnings).toEqual([]);
  });

  test("a quoted field never closed is refused naming the line it opened on, not read as one subject", () => {
    expect(() => parseSubjectFile('fullName,userReference\n"Ada Example,c1\nBob Roe,c2\nCy Doe,c3\n', "csv")).toThrow(
      "The CSV has a quoted field that is never closed, opened on line 2",
    );
    expect(() => parseSubjectFile('fullName,userReference\nAda Example,c1\nBob Roe,"c2\nCy Doe,c3\n', "csv")).toThrow("opened on line 3");
  });

  test("a quote closed and then followed by text is refused too: it swallows the lines after it", () => {
    expect(() => parseSubjectFile('fullName,dateOfBirth\n"Boris"x,1961\nVladimir Putin,1952\n"Kim Jong Un",1984\n', "csv")).toThrow(
      "The CSV has a quoted field with text after its closing quote, on line 2",
    );
  });

  test("a row with more fields than the header is refused, not screened as a truncated name; fewer fields only warn", () => {
    const { rows, warnings } = parseSubjectFile("fullName\nPutin, Vladimir\nAda Example\n", "csv");
    expect(messageOf(rows[0])).toBe('CSV row 1 has more fields than the header (Too many fields: expected 1 fields but parsed 2): quote a value that holds a comma ("Putin, Vladimir")');
    expect(rows[1]?.input).toEqual(expect.objectContaining({ fullName: "Ada Example" }));
    const fewer = parseSubjectFile("fullName,userReference\nBob Roe\n", "csv");
    expect(fewer.rows[0]?.input).toEqual(expect.objectContaining({ fullName: "Bob Roe" }));
    expect(fewer.warnings).toEqual(["CSV row 1: Too few fields: expected 2 fields but parsed 1"]);
    expect(warnings).toEqual([]);
  });
});
