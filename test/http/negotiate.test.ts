import { describe, expect, test } from "bun:test";
import { ServiceError } from "@/errors";
import { isJsonMediaType } from "@/http/media";
import { chooseRepresentation, JSON_OR_CSV, JSON_TYPES, negotiate, negotiateJsonType } from "@/http/negotiate";

describe("negotiate: RFC 9110 q-values, most specific range wins", () => {
  test.each([
    [null, "application/json"],
    ["", "application/json"],
    ["   ", "application/json"],
    ["*/*", "application/json"],
    ["application/json", "application/json"],
    ["text/plain", "text/plain"],
    ["TEXT/JSON", "text/json"],
    ["application/json, text/plain, */*", "application/json"],
    ["text/plain, application/json", "text/plain"],
    ["image/png, text/plain;q=0.5", "text/plain"],
    ["application/json;q=0, */*", "text/json"],
    ["text/*;q=0.9, text/plain;q=0.1", "text/json"],
    ["application/*", "application/json"],
    ["application/problem+json", "application/json"],
    ["text/plain; charset=utf-8", "text/plain"],
    ["application/json;q=abc", null], // an unreadable weight: that range is not acceptable
    ["application/xml", null],
    ["text/csv", null],
    ["application/json;q=0", null],
    ["*/*;q=0", null],
  ])("JSON only, Accept %p → %p", (accept, expected) => {
    expect(negotiate(accept, JSON_TYPES)).toBe(expected as never);
  });

  test.each([
    ["text/csv", "text/csv"],
    ["text/csv;q=0, application/json", "application/json"],
    ["application/json, text/csv;q=0.1", "application/json"],
    ["text/csv, application/json", "text/csv"],
    ["application/json;q=0.5, text/csv", "text/csv"],
    ["text/csv;q=0.5, */*", "application/json"],
    ["*/*, text/csv;q=0", "application/json"],
    ["text/*", "text/json"],
    ["text/csv;q=0", null],
  ])("JSON or CSV, Accept %p → %p", (accept, expected) => {
    expect(negotiate(accept, JSON_OR_CSV)).toBe(expected as never);
  });
});

describe("chooseRepresentation: an explicit format wins", () => {
  test("format=csv is CSV whatever Accept says", () => {
    expect(chooseRepresentation("application/xml", JSON_OR_CSV, "csv")).toBe("text/csv");
  });
  test("format=json is JSON whatever Accept says, under a JSON type Accept prefers", () => {
    expect(chooseRepresentation("text/csv", JSON_OR_CSV, "json")).toBe("application/json");
    expect(chooseRepresentation("text/plain", JSON_OR_CSV, "json")).toBe("text/plain");
  });
  test("without format, an Accept allowing none is 406", () => {
    expect(() => chooseRepresentation("application/xml", JSON_OR_CSV)).toThrow(ServiceError);
    expect(() => negotiateJsonType("image/png")).toThrow(/image\/png/);
  });
  test("format=csv on a JSON-only route does not select CSV", () => {
    expect(chooseRepresentation(null, JSON_TYPES, "csv")).toBe("application/json");
  });
});

describe("isJsonMediaType", () => {
  test.each([
    ["application/json", true],
    ["application/json; charset=utf-8", true],
    ["Application/JSON;charset=UTF-8", true],
    ["application/vnd.api+json", true],
    ["application/merge-patch+json; charset=utf-8", true],
    ["text/json", true],
    ["Text/JSON; charset=utf-8", true],
    ["text/plain", false],
    ["application/x-www-form-urlencoded", false],
    ["multipart/form-data; boundary=x", false],
    ["application/jsonx", false],
    ["", false],
  ])("%p → %p", (type, expected) => {
    expect(isJsonMediaType(type)).toBe(expected);
  });
});
