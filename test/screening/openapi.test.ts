import { afterAll, beforeAll, expect, test } from "bun:test";
import { call, json } from "../helpers/api";
import { type ListServer, startListServer } from "../helpers/lists";

interface Operation {
  security?: unknown[];
  requestBody?: { content: Record<string, { schema: { type?: string; properties?: Record<string, { description?: string }>; items?: unknown } }> };
  responses?: Record<string, { content?: Record<string, { schema: { properties?: Record<string, unknown> } }> }>;
  "x-policy"?: string;
}
type Doc = { paths: Record<string, Record<string, Operation>> };

let lists: ListServer;
let doc: Doc;
beforeAll(async () => {
  lists = await startListServer();
  doc = json<Doc>(await call(lists.server.url, "/openapi.json"));
});
afterAll(() => lists.close());

test("the screening and risk-profile routes are documented with their policies", () => {
  expect(doc.paths["/v1/screenings/check"]?.post?.["x-policy"]).toBe("Screening.Write");
  expect(doc.paths["/v1/screenings/bulk"]?.post?.["x-policy"]).toBe("Screening.Write");
  expect(doc.paths["/v1/screenings/{id}"]?.get?.["x-policy"]).toBe("Screening.Read");
  expect(doc.paths["/v1/screenings/{id}/rescreen"]?.post?.["x-policy"]).toBe("Screening.Write");
  expect(doc.paths["/v1/tenants/{id}/risk-profile"]?.put?.["x-policy"]).toBe("Admin");
  expect(doc.paths["/v1/tenants/{id}/risk-profile"]?.put?.security).toEqual([{ bearer: [] }]);
});

test("bodies document the subject formats and the options; responses document the record", () => {
  const check = doc.paths["/v1/screenings/check"]?.post;
  const props = check?.requestBody?.content["application/json"]?.schema.properties ?? {};
  expect(Object.keys(props).sort()).toEqual(["aliases", "dateOfBirth", "fullName", "nationality", "options", "userReference"]);
  expect(JSON.stringify(props.dateOfBirth)).toContain("YYYY-MM-DD");
  expect(JSON.stringify(props.nationality)).toContain("alpha-2");
  expect(JSON.stringify(props.options)).toContain("threshold");
  const record = check?.responses?.["200"]?.content?.["application/json"]?.schema.properties ?? {};
  for (const field of ["id", "listVersions", "matches", "suppressedMatches", "adverseMediaStatus", "rescreenOf", "origin", "riskBand"]) {
    expect(record[field]).toBeDefined();
  }
  const bulk = doc.paths["/v1/screenings/bulk"]?.post;
  expect(bulk?.requestBody?.content["application/json"]?.schema.type).toBe("array");
  expect(bulk?.responses?.["200"]?.content?.["text/csv"]).toBeDefined();
});
