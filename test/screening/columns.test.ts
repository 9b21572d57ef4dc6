import { describe, expect, test } from "bun:test";
import { hasNameColumns, subjectFromColumns, unknownColumns } from "@/screening/columns";
import { parseSubjectFile } from "@/screening/subject-file";

describe("file columns to subjects", () => {
  test.each([
    ["fullName", { fullName: "Jane Roe" }, "Jane Roe"],
    ["name", { Name: "Jane Roe" }, "Jane Roe"],
    ["First Name + Last Name", { "First Name": "Jane", "Last Name": "Roe" }, "Jane Roe"],
    ["first_name + SURNAME", { first_name: "Jane", SURNAME: "Roe" }, "Jane Roe"],
    ["fullName wins over the parts", { fullName: "J. Roe", firstName: "Jane", lastName: "Roe" }, "J. Roe"],
  ])("%s", (_label, row, fullName) => {
    expect(subjectFromColumns(row).fullName).toBe(fullName);
  });

  test("optional columns; aliases split on semicolons; empty cells are absent", () => {
    expect(
      subjectFromColumns({ name: "Jane Roe", "Date of Birth": "1970-01", nationality: "", aliases: "J. Roe; Janie ;", "User Reference": "c-9" }),
    ).toEqual({ fullName: "Jane Roe", dateOfBirth: "1970-01", aliases: ["J. Roe", "Janie"], userReference: "c-9" });
  });

  test("name columns are required; unknown columns are reported", () => {
    expect(hasNameColumns(["First Name", "dob"])).toBe(false);
    expect(hasNameColumns(["Given Name", "Family Name"])).toBe(true);
    expect(unknownColumns(["name", "Notes", ""])).toEqual(["Notes"]);
    expect(() => parseSubjectFile("dob,nationality\n1970,GB\n", "csv")).toThrow("fullName or name column");
  });

  test("a header named like a member of every object (Constructor, toString) is an unknown column, not a field", () => {
    expect(subjectFromColumns({ fullName: "Jane Roe", Constructor: "x", toString: "y", "__proto__": "z" })).toEqual({ fullName: "Jane Roe" });
    expect(unknownColumns(["fullName", "Constructor", "to_string", "hasOwnProperty"])).toEqual(["Constructor", "to_string", "hasOwnProperty"]);
    expect(hasNameColumns(["constructor"])).toBe(false);
    const { rows } = parseSubjectFile("fullName,Constructor\nJane Roe,builder\n", "csv");
    expect(rows[0]?.input).toEqual({ fullName: "Jane Roe" });
  });

  test("JSONL keeps line numbers and reports lines that are not JSON", () => {
    const { rows } = parseSubjectFile('{"fullName":"A"}\n\n{oops\n', "jsonl");
    expect(rows.map((r) => r.line)).toEqual([1, 3]);
    expect(rows[1]?.input).toBeInstanceOf(Error);
  });

  test("a JSONL line that names a member twice is that line's error, as over HTTP", () => {
    const { rows } = parseSubjectFile('{"fullName":"A"}\n{"fullName":"A","fullName":"B"}\n', "jsonl");
    expect(rows[0]?.input).toEqual({ fullName: "A" });
    expect(rows[1]?.input).toBeInstanceOf(Error);
    expect(String(rows[1]?.input)).toContain('line 2 names "fullName" twice');
  });
});
