import { describe, expect, test } from "bun:test";
import { ServiceError } from "@/errors";
import { negotiateJsonType } from "@/http/negotiate";

/** Which JSON media type an Accept header gets (RFC 9110 §12.5.1), or 406. */
describe("negotiateJsonType", () => {
  const cases: Array<[string, string | null, ReturnType<typeof negotiateJsonType>]> = [
    ["no header", null, "application/json"],
    ["an empty header", "", "application/json"],
    ["application/json", "application/json", "application/json"],
    ["text/json", "text/json", "text/json"],
    ["text/plain", "text/plain", "text/plain"],
    ["any type", "*/*", "application/json"],
    ["application/*", "application/*", "application/json"],
    ["text/* (text/json: JSON named as JSON)", "text/*", "text/json"],
    ["a +json suffix type", "application/problem+json", "application/json"],
    ["parameters and spacing", " Text/Plain ; charset=utf-8 ", "text/plain"],
    ["a browser's default", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "application/json"],
    ["the higher q wins", "text/plain;q=0.4, text/json;q=0.9", "text/json"],
    ["equal q keeps header order", "text/json, text/plain", "text/json"],
    ["unusable types are skipped", "image/png, text/plain;q=0.1", "text/plain"],
    ["q=0 excludes a type a wildcard would pick", "application/json;q=0, */*", "text/json"],
    ["q=0 on text/plain steers text/* to text/json", "text/plain;q=0, text/*", "text/json"],
    ["an unreadable q is treated as not acceptable", "text/plain;q=abc, text/json;q=0.5", "text/json"],
  ];
  test.each(cases)("%s → %s", (_case, accept, expected) => {
    expect(negotiateJsonType(accept)).toBe(expected);
  });

  test.each([
    ["image/png"],
    ["text/csv, application/pdf"],
    ["application/json;q=0"],
    ["*/*;q=0"],
    ["application/json;q=0, text/json;q=0, text/plain;q=0, */*"],
  ])("%s → 406 NOT_ACCEPTABLE naming the header", (accept) => {
    let thrown: unknown;
    try {
      negotiateJsonType(accept);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ServiceError);
    expect((thrown as ServiceError).code).toBe("NOT_ACCEPTABLE");
    expect((thrown as ServiceError).status).toBe(406);
    expect((thrown as ServiceError).message).toContain(accept);
  });
});
