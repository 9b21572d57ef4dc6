import { afterAll, beforeAll, expect, test } from "bun:test";
import { z } from "zod";
import { BULK_MAX_BODY_BYTES } from "@/screening/routes";
import { call, json } from "../helpers/api";
import { EVERY_OPERATION_PROBLEMS } from "../helpers/openapi";
import { headersOnly } from "../helpers/raw-http";
import { type ScreeningWorld, startScreeningWorld } from "./world";

type Schema = {
  type?: string | string[];
  properties?: Record<string, unknown>;
  required?: string[];
  additionalProperties?: unknown;
  items?: unknown;
  $ref?: string;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  description?: string;
  anyOf?: Schema[];
};
type Media = Record<string, { schema: Schema }>;
interface Response {
  $ref?: string;
  description?: string;
  headers?: Record<string, unknown>;
  content?: Media;
}
interface Operation {
  description?: string;
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

let world: ScreeningWorld;
let doc: Doc;
beforeAll(async () => {
  world = await startScreeningWorld();
  const res = await call(world.url, "/openapi.json");
  expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
  doc = json<Doc>(res);
});
afterAll(() => world.close());

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
  ["/v1/screenings/check", "post", ["400", "401", "403", "406", "413", "415", "422", "429", "500", "503"]],
  ["/v1/screenings/{id}", "get", ["400", "401", "403", "404", "406", "413", "415", "500", "503"]],
  ["/v1/screenings/{id}/rescreen", "post", ["400", "401", "403", "404", "406", "409", "413", "415", "422", "429", "500", "503"]],
  ["/v1/screenings/bulk", "post", ["400", "401", "403", "406", "413", "415", "422", "429", "500", "503"]],
  ["/v1/usage", "get", ["400", "401", "403", "406", "413", "415", "500", "503"]],
];

test("the spec's open versioning questions are answered: interface 1.0 under /v1, a deprecation policy and a change history", async () => {
  const info = (doc as unknown as { info: { version: string; description: string } }).info;
  expect(info.version).toBe("1.0");
  expect(info.description).toContain("**Versioning**");
  expect(info.description).toContain("Deprecation");
  expect(info.description).toContain("docs/api-changes.md");
  const history = await Bun.file(`${import.meta.dir}/../../docs/api-changes.md`).text();
  expect(history).toContain("### 1.0: first release");
  expect(Object.keys(doc.paths).filter((path) => path.startsWith("/v") && !path.startsWith("/v1/"))).toEqual([]);
});

test("responses the spec names carry its names, so clients generated from either document agree", () => {
  const okSchema = (path: string, method: string) => op(path, method).responses?.["200"]?.content?.["application/json"]?.schema.$ref;
  expect(okSchema("/v1/screenings/bulk", "post")).toBe("#/components/schemas/BulkScreeningResponse");
  expect(okSchema("/v1/audit", "get")).toBe("#/components/schemas/AuditListResponse");
  expect(okSchema("/v1/audit/verify", "get")).toBe("#/components/schemas/AuditVerifyResponse");
});

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

test("bulk documents its byte cap, format and Idempotency-Key parameters and its headers", () => {
  const bulk = op("/v1/screenings/bulk", "post");
  expect(bulk["x-max-body-bytes"]).toBe(BULK_MAX_BODY_BYTES);
  expect(bulk.parameters?.map((p) => resolve(p).name)).toEqual(["format", "Idempotency-Key", "X-Correlation-Id"]);
  expect(Object.keys(bulk.responses?.["200"]?.headers ?? {})).toEqual(
    expect.arrayContaining(["Idempotent-Replayed", "X-Bulk-Total", "X-Bulk-Screened", "X-Bulk-Failed"]),
  );
  expect(bulk.responses?.["422"]?.description).toContain("IDEMPOTENCY_KEY_REUSED");
  expect(bulk.responses?.["413"]?.description).toContain(String(BULK_MAX_BODY_BYTES));
  expect(bulk.responses?.["401"]?.description).toContain("not read before");
});

test("usage has a response schema", () => {
  const usage = resolve(op("/v1/usage", "get").responses?.["200"]?.content?.["application/json"]?.schema ?? {});
  expect(Object.keys(usage.properties ?? {}).sort()).toEqual(["correlationId", "limit", "period", "remaining", "resetsAt", "unlimited", "used"]);
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

test("every operation has a description, and every parameter one of its own (the explorer shows the parameter's, not its schema's)", () => {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const where = `${method} ${path}`;
      expect({ where, described: typeof operation.description === "string" && operation.description.length > 0 }).toEqual({ where, described: true });
      for (const parameter of operation.parameters ?? []) {
        const resolved = resolve(parameter) as { name?: string; description?: string };
        expect({ where, parameter: resolved.name, described: Boolean(resolved.description) }).toEqual({ where, parameter: resolved.name, described: true });
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

const EXPLANATION_FIELDS = [
  "aliasFactor",
  "aliasQuality",
  "alignments",
  "conflictPenalty",
  "dob",
  "dobMismatchSurfaced",
  "matchedWeight",
  "nameScore",
  "nationality",
  "omissionPenalty",
  "singleTokenFactor",
  "unmatchedCandidate",
  "unmatchedQuery",
];

/** The Screening component's schema of a match's explanation, under `matches` or `suppressedMatches`. */
function explanationSchema(field: "matches" | "suppressedMatches"): Schema {
  const screening = doc.components.schemas.Screening as Schema;
  const match = (((screening.properties?.[field] ?? {}) as Schema).items ?? {}) as Schema;
  return resolve((match.properties?.explanation ?? {}) as Schema);
}

test.each(["matches", "suppressedMatches"] as const)("%s[].explanation is a closed object of the engine's fields, each described", (field) => {
  const explanation = explanationSchema(field);
  expect(explanation.type).toBe("object");
  expect(explanation.additionalProperties).toBe(false);
  expect(Object.keys(explanation.properties ?? {}).sort()).toEqual(EXPLANATION_FIELDS);
  expect([...(explanation.required ?? [])].sort()).toEqual(EXPLANATION_FIELDS);
  for (const [name, member] of Object.entries(explanation.properties ?? {})) {
    expect({ name, described: Boolean((member as Schema).description) }).toEqual({ name, described: true });
  }
  const property = (name: string) => (explanation.properties?.[name] ?? {}) as Schema;
  const alignment = (property("alignments").items ?? {}) as Schema;
  expect([...(alignment.required ?? [])].sort()).toEqual(["candidate", "kind", "query", "similarity", "weight"]);
  expect(((alignment.properties?.kind ?? {}) as Schema).enum).toEqual(["exact", "fuzzy", "transliteration", "phonetic", "nickname", "initial"]);
  expect(((property("unmatchedQuery").items ?? {}) as Schema).required).toEqual(["token", "weight"]);
  expect(property("aliasQuality").enum).toEqual(["strong", "weak"]);
  expect(((property("dob").properties?.relation ?? {}) as Schema).enum).toEqual(["exact", "year", "near", "mismatch", "unknown"]);
  expect(((property("nationality").properties?.relation ?? {}) as Schema).enum).toEqual(["match", "mismatch", "unknown"]);
  // No open object anywhere in the record: every member the server sends is named.
  expect(JSON.stringify(doc.components.schemas.Screening)).not.toContain('"additionalProperties":{}');
});

test("a real check answer, its matches' explanations included, conforms to the published Screening schema", async () => {
  const res = await world.post("/v1/screenings/check", { fullName: "Dmitri Korvalev", dateOfBirth: "1970", nationality: "RU" });
  expect(res.status).toBe(200);
  const body = json<{ matches: Array<{ explanation: Record<string, unknown> }> }>(res);
  expect(body.matches.length).toBeGreaterThan(0);
  expect(Object.keys(body.matches[0]?.explanation ?? {}).sort()).toEqual(EXPLANATION_FIELDS);
  // zod's JSON Schema reader rebuilds the published schema (closed objects included) and checks the answer as sent.
  const published = z.fromJSONSchema(doc.components.schemas.Screening as Parameters<typeof z.fromJSONSchema>[0]);
  const parsed = published.safeParse(body);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  const explanation = z.fromJSONSchema(explanationSchema("matches") as Parameters<typeof z.fromJSONSchema>[0]);
  expect(explanation.safeParse({ ...body.matches[0]?.explanation, extra: 1 }).success).toBe(false);
});

test("503 declares Retry-After: 1 for a locked database", () => {
  const notReady = doc.components.responses.NotReady as Response;
  const retryAfter = notReady.headers?.["Retry-After"] as { description?: string; schema?: Schema } | undefined;
  expect(retryAfter?.schema?.type).toBe("integer");
  expect(retryAfter?.description).toContain("write lock");
  expect(resolve(op("/v1/screenings/check", "post").responses?.["503"] ?? {}).headers?.["Retry-After"]).toBeDefined();
});

test("bulk's 200 declares the CSV answer's Content-Disposition", () => {
  const header = op("/v1/screenings/bulk", "post").responses?.["200"]?.headers?.["Content-Disposition"] as { description?: string; schema?: Schema } | undefined;
  expect(header?.description).toStartWith("CSV responses only");
  expect(new RegExp(header?.schema?.pattern ?? "^$").test('attachment; filename="bulk-screening-3f9b7c1e-2d4a-4b8e-9c6f-1a2b3c4d5e6f.csv"')).toBe(true);
});

test("every operation declares 413, 415 and 500 as shared problems, routes without a body included", () => {
  const shared: Record<string, string> = {
    "413": "#/components/responses/PayloadTooLarge",
    "415": "#/components/responses/UnsupportedMediaType",
    "500": "#/components/responses/Internal",
  };
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      for (const status of EVERY_OPERATION_PROBLEMS) {
        const response = operation.responses?.[status];
        expect({ method, path, status, ref: response?.$ref }).toEqual({
          method,
          path,
          status,
          ref: shared[status],
        });
      }
    }
  }
  const internal = doc.components.responses.Internal as Response;
  expect(resolve(internal.content?.["application/problem+json"]?.schema ?? {}).properties?.correlationId).toBeDefined();
  expect(internal.description).toContain("INTERNAL");
  // A body in a content coding is 415 on any route, with Accept-Encoding: identity.
  const unsupported = doc.components.responses.UnsupportedMediaType as Response;
  expect(unsupported.description).toContain("Content-Encoding");
  expect(unsupported.headers?.["Accept-Encoding"]).toBeDefined();
  // A route's own 413 description is kept.
  expect(op("/v1/screenings/bulk", "post").responses?.["413"]?.description).toContain(String(BULK_MAX_BODY_BYTES));
});

test("a read answers 413 for a body over the limit, as declared", async () => {
  // fetch sends no body with a GET: the head declares 5 MB and none of it is sent, as the limit is judged from Content-Length.
  const { host, port } = new URL(world.url);
  const head = ["GET /v1/usage HTTP/1.1", `Host: ${host}`, `X-Api-Key: ${world.key}`, "Content-Type: application/json", `Content-Length: ${5 * 1024 * 1024}`];
  const answer = await headersOnly(Number(port), head, "");
  expect(answer.status).toBe(413);
  expect(JSON.parse(answer.body)).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
  expect(op("/v1/usage", "get").responses?.["413"]?.$ref).toBe("#/components/responses/PayloadTooLarge");
});

test("createdAt is a date-time, on the screening and on the webhook payload, and accepts what the server sends", () => {
  const screening = doc.components.schemas.Screening as Schema;
  const payload = doc.components.schemas.WebhookPayload as Schema;
  for (const createdAt of [screening.properties?.createdAt, payload.properties?.createdAt] as Schema[]) {
    expect(createdAt.format).toBe("date-time");
    expect(new RegExp(createdAt.pattern ?? "^$").test("2026-11-23T22:59:55.418Z")).toBe(true);
  }
});

test("the two correlation ids say which request each belongs to", () => {
  const screening = doc.components.schemas.Screening as Schema;
  const property = (name: string) => (screening.properties?.[name] ?? {}) as Schema;
  expect(property("correlationId").description).toContain("screeningCorrelationId");
  expect(property("correlationId").description).toContain("THIS request");
  expect(property("screeningCorrelationId").description).toContain("webhook");
  expect(screening.description).toContain("screeningCorrelationId");
  expect((doc.components.schemas.WebhookPayload as Schema).properties?.correlationId).toMatchObject({ description: expect.stringContaining("screeningCorrelationId") });
});

test("a JSON request body names every type the route reads, not only the one content entry", () => {
  for (const [path, method] of [["/v1/screenings/check", "post"], ["/v1/screenings/bulk", "post"]] as const) {
    const description = (op(path, method) as { requestBody?: { description?: string } }).requestBody?.description ?? "";
    for (const type of ["application/json", "text/json", "application/*+json", "no Content-Type", "Content-Encoding"]) expect(description).toContain(type);
  }
});
