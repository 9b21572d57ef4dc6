import { afterAll, beforeAll, expect, test } from "bun:test";
import { BULK_MAX_BODY_BYTES } from "@/screening/routes";
import { call, json } from "../helpers/api";
import { type ListServer, startListServer } from "../helpers/lists";

type Schema = { type?: string | string[]; properties?: Record<string, unknown>; items?: unknown; $ref?: string; pattern?: string; anyOf?: Schema[] };
type Media = Record<string, { schema: Schema }>;
interface Response {
  $ref?: string;
  description?: string;
  headers?: Record<string, unknown>;
  content?: Media;
}
interface Operation {
  security?: unknown[];
  parameters?: Array<{ $ref?: string; name?: string; in?: string }>;
  requestBody?: { required?: boolean; content: Media };
  responses?: Record<string, Response>;
  "x-policy"?: string;
  "x-max-body-bytes"?: number;
}
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; responses: Record<string, Response>; parameters: Record<string, { name: string; in: string }>; headers: Record<string, unknown> };
};

let lists: ListServer;
let doc: Doc;
beforeAll(async () => {
  lists = await startListServer();
  const res = await call(lists.server.url, "/openapi.json");
  expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
  doc = json<Doc>(res);
});
afterAll(() => lists.close());

/** Follows a local $ref (#/components/...) to what it names. */
function resolve<T>(node: T & { $ref?: string }): T {
  if (!node.$ref) return node;
  let target: unknown = doc;
  for (const part of node.$ref.replace(/^#\//, "").split("/")) target = (target as Record<string, unknown>)[part];
  expect(target).toBeDefined();
  return target as T;
}

const op = (path: string, method: string): Operation => {
  const found = doc.paths[path]?.[method];
  expect(found).toBeDefined();
  return found as Operation;
};

const ROUTES: Array<[string, string, string[]]> = [
  ["/v1/screenings/check", "post", ["400", "401", "403", "406", "413", "415", "422", "429", "503"]],
  ["/v1/screenings/{id}", "get", ["400", "401", "403", "404", "406", "503"]],
  ["/v1/screenings/{id}/rescreen", "post", ["400", "401", "403", "404", "406", "409", "413", "415", "422", "429", "503"]],
  ["/v1/screenings/bulk", "post", ["400", "401", "403", "406", "413", "415", "429", "503"]],
  ["/v1/usage", "get", ["400", "401", "403", "406", "503"]],
];

test("the screening and risk-profile routes are documented with their policies", () => {
  expect(doc.paths["/v1/screenings/check"]?.post?.["x-policy"]).toBe("Screening.Write");
  expect(doc.paths["/v1/screenings/bulk"]?.post?.["x-policy"]).toBe("Screening.Write");
  expect(doc.paths["/v1/screenings/{id}"]?.get?.["x-policy"]).toBe("Screening.Read");
  expect(doc.paths["/v1/screenings/{id}/rescreen"]?.post?.["x-policy"]).toBe("Screening.Write");
  expect(doc.paths["/v1/tenants/{id}/risk-profile"]?.put?.["x-policy"]).toBe("Admin");
  expect(doc.paths["/v1/tenants/{id}/risk-profile"]?.put?.security).toEqual([{ bearer: [] }]);
});

test("bodies document the subject formats and the options; responses document the record", () => {
  const check = op("/v1/screenings/check", "post");
  expect(Object.keys(check.requestBody?.content ?? {})).toEqual(["application/json"]);
  const props = check.requestBody?.content["application/json"]?.schema.properties ?? {};
  expect(Object.keys(props).sort()).toEqual(["aliases", "dateOfBirth", "fullName", "nationality", "options", "userReference"]);
  expect(JSON.stringify(props.dateOfBirth)).toContain("YYYY-MM-DD");
  expect(JSON.stringify(props.nationality)).toContain("alpha-2");
  expect(JSON.stringify(props.options)).toContain("threshold");
  const record = resolve(check.responses?.["200"]?.content?.["application/json"]?.schema ?? {}).properties ?? {};
  for (const field of ["id", "listVersions", "matches", "suppressedMatches", "adverseMediaStatus", "rescreenOf", "origin", "riskBand"]) {
    expect(record[field]).toBeDefined();
  }
  const bulk = op("/v1/screenings/bulk", "post");
  expect(bulk.requestBody?.content["application/json"]?.schema.type).toBe("array");
  expect(bulk.responses?.["200"]?.content?.["text/csv"]).toBeDefined();
});

test("the response subject has typed fields: nationality an alpha-2 string, dateOfBirth a pattern", () => {
  const screening = doc.components.schemas.Screening as Schema;
  const subject = (screening.properties?.subject ?? {}) as Schema;
  const field = (name: string) => (subject.properties?.[name] ?? {}) as Schema;
  const nonNull = (s: Schema) => s.anyOf?.find((x) => x.type !== "null") ?? s;
  expect(nonNull(field("nationality"))).toMatchObject({ type: "string", pattern: "^[A-Z]{2}$" });
  expect(nonNull(field("dateOfBirth")).type).toBe("string");
  expect(new RegExp(nonNull(field("dateOfBirth")).pattern ?? "^$").test("1961-05")).toBe(true);
  expect(field("aliases").type).toBe("array");
});

test.each(ROUTES)("%s %s declares its problem responses as application/problem+json", (path, method, statuses) => {
  const responses = op(path, method).responses ?? {};
  expect(Object.keys(responses).sort()).toEqual(["200", ...statuses].sort());
  for (const status of statuses) {
    const response = resolve(responses[status] as Response);
    expect(resolve(response.content?.["application/problem+json"]?.schema ?? {}).properties?.code).toBeDefined();
    expect(response.headers?.["X-Correlation-Id"]).toBeDefined();
  }
  expect(resolve(responses["401"] ?? {}).headers?.["WWW-Authenticate"]).toBeDefined();
  if (statuses.includes("429")) expect(resolve(responses["429"] ?? {}).headers?.["Retry-After"]).toBeDefined();
});

test.each(ROUTES)("%s %s lists every negotiated JSON type with one shared schema, and X-Correlation-Id both ways", (path, method) => {
  const operation = op(path, method);
  const ok = operation.responses?.["200"] as Response;
  const content = ok.content ?? {};
  for (const type of ["application/json", "text/json", "text/plain"]) expect(content[type]?.schema.$ref).toStartWith("#/components/schemas/");
  expect(new Set(["application/json", "text/json", "text/plain"].map((t) => content[t]?.schema.$ref)).size).toBe(1);
  expect(resolve(content["application/json"]?.schema ?? {}).properties).toBeDefined();
  expect(ok.headers?.["X-Correlation-Id"]).toBeDefined();
  const parameters = (operation.parameters ?? []).map((p) => resolve(p));
  expect(parameters.find((p) => p.name === "X-Correlation-Id")?.in).toBe("header");
});

test("check and rescreen declare Idempotency-Key, Location and Idempotent-Replayed; read keeps its path parameter", () => {
  for (const [path, method] of [["/v1/screenings/check", "post"], ["/v1/screenings/{id}/rescreen", "post"]] as const) {
    const operation = op(path, method);
    expect(operation.parameters?.map((p) => resolve(p).name)).toContain("Idempotency-Key");
    expect(Object.keys(operation.responses?.["200"]?.headers ?? {})).toEqual(expect.arrayContaining(["Location", "Idempotent-Replayed", "X-Correlation-Id"]));
  }
  expect(op("/v1/screenings/{id}/rescreen", "post").requestBody?.required).toBe(false);
  // Its 409: a stored subject with a name that has no letter or digit (rescreen.ts).
  expect(op("/v1/screenings/{id}/rescreen", "post").responses?.["409"]?.description).toContain("no letter or digit");
  expect(op("/v1/screenings/{id}", "get").parameters?.map((p) => resolve(p).name)).toEqual(["id", "X-Correlation-Id"]);
});

test("bulk documents its byte cap, format parameter and CSV headers", () => {
  const bulk = op("/v1/screenings/bulk", "post");
  expect(bulk["x-max-body-bytes"]).toBe(BULK_MAX_BODY_BYTES);
  expect(bulk.parameters?.map((p) => resolve(p).name)).toEqual(["format", "X-Correlation-Id"]);
  expect(Object.keys(bulk.responses?.["200"]?.headers ?? {})).toEqual(expect.arrayContaining(["X-Bulk-Total", "X-Bulk-Screened", "X-Bulk-Failed"]));
  expect(bulk.responses?.["413"]?.description).toContain(String(BULK_MAX_BODY_BYTES));
  expect(bulk.responses?.["401"]?.description).toContain("not read before");
});

test("usage has a response schema", () => {
  const usage = resolve(op("/v1/usage", "get").responses?.["200"]?.content?.["application/json"]?.schema ?? {});
  expect(Object.keys(usage.properties ?? {}).sort()).toEqual(["correlationId", "limit", "remaining", "unlimited", "used"]);
});

test("every operation declares its responses, each a shared problem or a body with a schema", () => {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const where = `${method} ${path}`;
      const responses = Object.entries(operation.responses ?? {});
      expect({ where, documented: responses.length > 0 }).toEqual({ where, documented: true });
      for (const [status, response] of responses) {
        if (response.$ref !== undefined) continue;
        const media = Object.entries(response.content ?? {});
        expect({ where, status, media: media.length > 0 && Boolean(response.description) }).toEqual({ where, status, media: true });
        for (const [type, { schema }] of media) expect({ where, status, type, schema: schema !== undefined }).toEqual({ where, status, type, schema: true });
      }
    }
  }
});

test("every operation accepts X-Correlation-Id, and every local $ref resolves", () => {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const names = (operation.parameters ?? []).map((p) => resolve(p).name);
      expect({ path, method, names }).toMatchObject({ names: expect.arrayContaining(["X-Correlation-Id"]) });
    }
  }
  const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
  expect(refs.length).toBeGreaterThan(0);
  for (const ref of new Set(refs)) resolve({ $ref: JSON.parse(`{${ref}}`).$ref as string });
});
