import type { DocumentDecoration } from "elysia";
import { z } from "zod";
import { ERROR_CATALOGUE } from "@/errors";
import { JSON_TYPES } from "./negotiate";
import { PROBLEM_CONTENT_TYPE } from "./problem";

/**
 * Shared pieces of the OpenAPI description, so routes declare their problem responses, headers and
 * negotiated media types by reference instead of copying them: the standard problem responses,
 * header parameters and headers live once under `components` (OPENAPI_COMPONENTS, added by docs.ts),
 * and finishDocument() completes what the generator leaves out. Documentation only: nothing here
 * runs per request.
 */

type OpenApiResponse = Exclude<NonNullable<DocumentDecoration["responses"]>[string], { $ref: string }>;
type OpenApiParameter = NonNullable<DocumentDecoration["parameters"]>[number];
export type OpenApiSchema = NonNullable<NonNullable<OpenApiResponse["content"]>[string]["schema"]>;
type OpenApiHeader = NonNullable<OpenApiResponse["headers"]>[string];
type Ref = { $ref: string; description?: string };

/**
 * A zod schema as an OpenAPI schema object. zod's JSON Schema (draft 2020-12) is what OpenAPI 3.1
 * uses, but its TypeScript type is not the openapi-types one, hence the one cast, kept here.
 */
function openApiSchema(schema: z.ZodType, io: "input" | "output"): OpenApiSchema {
  return z.toJSONSchema(schema, { io, unrepresentable: "any" }) as OpenApiSchema;
}

/** The JSON types a jsonBody route reads (media.ts, isJsonMediaType), said once for every request body. */
const JSON_BODY_TYPES =
  "JSON, declared as application/json (any charset parameter; the body is read as UTF-8), text/json or an application/*+json type, or sent with no Content-Type; in no content coding (Content-Encoding other than identity is 415).";

/** An operation's JSON request body, described by the zod schema that validates it. */
export function jsonRequestBody(schema: z.ZodType, required = true) {
  return { required, description: JSON_BODY_TYPES, content: { "application/json": { schema: openApiSchema(schema, "input") } } };
}

/**
 * A schema published once under components.schemas and referenced wherever it is used: it
 * serialises as its `$ref`, and finishDocument() collects the schema itself into components.
 */
export class SchemaComponent {
  readonly $ref: string;
  readonly #schema: OpenApiSchema;
  constructor(
    readonly name: string,
    schema: OpenApiSchema,
  ) {
    this.$ref = `#/components/schemas/${name}`;
    this.#schema = schema;
  }
  toJSON(): Ref {
    return { $ref: this.$ref };
  }
  schema(): OpenApiSchema {
    return this.#schema;
  }
}

/** A named response/request schema from zod (output for responses, input for request bodies). */
export function schemaComponent(name: string, schema: z.ZodType, io: "input" | "output" = "output"): SchemaComponent {
  return new SchemaComponent(name, openApiSchema(schema, io));
}

/** Content of a JSON body under every type Accept may negotiate (application/json, text/json, text/plain). */
export function jsonContent(schema: OpenApiSchema | SchemaComponent): NonNullable<OpenApiResponse["content"]> {
  const content: NonNullable<OpenApiResponse["content"]> = {};
  for (const type of JSON_TYPES) content[type] = { schema: schema as OpenApiSchema };
  return content;
}

/** A response with a JSON body (every negotiated JSON type) and optional response headers: a 2xx, or readyz's 503. */
export function jsonResponse(description: string, schema: OpenApiSchema | SchemaComponent, headers: Record<string, OpenApiHeader> = {}): OpenApiResponse {
  return { description, headers: { ...headers }, content: jsonContent(schema) };
}

const ref = (kind: "responses" | "parameters" | "headers" | "schemas", name: string): Ref => ({ $ref: `#/components/${kind}/${name}` });

/** The header every response carries. */
const CORRELATION_ID_HEADER: OpenApiHeader = ref("headers", "CorrelationId");

/** Request header parameters. X-Correlation-Id is added to every operation by finishDocument(). */
export const PARAMETERS = {
  correlationId: ref("parameters", "CorrelationId") as OpenApiParameter,
  idempotencyKey: ref("parameters", "IdempotencyKey") as OpenApiParameter,
};

/** The correlationId member every JSON object body carries (negotiate.ts adds it), for response schemas. */
export const BODY_CORRELATION_ID = z.string().describe("This request's correlation id (as on every JSON object body)");

/**
 * A moment the appliance recorded, as it sends every one: ISO 8601 in UTC with milliseconds and "Z"
 * (Date#toISOString), published as `format: date-time`.
 */
export const instant = (description: string) => z.iso.datetime().describe(`${description} (ISO 8601 date-time, UTC)`);
export const instantOrNull = (description: string) => z.iso.datetime().nullable().describe(`${description} (ISO 8601 date-time, UTC)`);

/** The 400 of a route that takes no query parameters, in its problemResponses descriptions. */
export const NO_QUERY_PROBLEM = "An unknown query parameter (the route takes none).";

/**
 * The 406 of a route without `produces` (health, the policy table): it negotiates once its answer is
 * built, which is harmless as it changes nothing, so the standard "refused before any work" is not said.
 */
export const LATE_NOT_ACCEPTABLE_PROBLEM = `NOT_ACCEPTABLE: Accept allows none of ${JSON_TYPES.join(", ")}.`;

/** The 503 of a route that reads the serving watchlists, in its problemResponses descriptions. */
export const NO_WATCHLIST_PROBLEM =
  "No watchlist snapshot is served yet (none was ever imported, or one is still loading), storage is being migrated, or (a bearer token) the identity provider's signing keys could not be loaded to check it.";

/** A description's sentence for a route that takes no query parameters. */
export const NO_QUERY = "No query parameters (an unknown one is 400).";

/**
 * A description's sentence for a JSON-body route's 406 and 415, refused before `untouched` (what the
 * route would otherwise do). An optional body (src/http/media.ts, jsonBody "optional") is accepted
 * empty whatever its declared type, so only a non-empty one can be 415.
 */
export function mediaRefusals(untouched: string, body: "required" | "optional" = "required"): string {
  const types = "application/json, text/json or application/*+json";
  const unsupported =
    body === "required" ? `a Content-Type other than ${types}` : `a non-empty body with a Content-Type other than ${types}; an empty body is accepted whatever its Content-Type`;
  return `A 406 (Accept allows no JSON type) or 415 (${unsupported}) is answered before ${untouched}.`;
}

const PROBLEMS = {
  400: {
    name: "BadRequest",
    code: "VALIDATION_FAILED",
    description:
      "VALIDATION_FAILED (errors[] names each field: body fields by path, query parameters as query.<name>, headers as header.<name>) or MALFORMED_JSON (the body is not UTF-8 JSON, or one object names a member twice).",
  },
  401: { name: "Unauthenticated", code: "UNAUTHENTICATED", description: "UNAUTHENTICATED: the credential is missing, malformed, unknown, expired or revoked." },
  403: { name: "Forbidden", code: "FORBIDDEN", description: "FORBIDDEN (the role does not satisfy the route's policy) or NO_USABLE_TENANT." },
  404: { name: "NotFound", code: "NOT_FOUND", description: "NOT_FOUND, including another tenant's object." },
  406: { name: "NotAcceptable", code: "NOT_ACCEPTABLE", description: "NOT_ACCEPTABLE: Accept allows none of the route's response types. Refused before any work is done." },
  409: { name: "Conflict", code: "CONFLICT", description: "CONFLICT with the current state." },
  413: {
    name: "PayloadTooLarge",
    code: "PAYLOAD_TOO_LARGE",
    description:
      "PAYLOAD_TOO_LARGE: the body is over the route's byte limit: maxJsonBodyBytes (4 MiB by default) unless the route states more. Any route answers it, one that takes no body included: a body over the limit is refused from its Content-Length before anything is read, or as soon as a chunked body passes it.",
  },
  415: {
    name: "UnsupportedMediaType",
    code: "UNSUPPORTED_MEDIA_TYPE",
    description:
      "UNSUPPORTED_MEDIA_TYPE: the body is not declared as JSON (Content-Type application/json, text/json or application/*+json) on a route that reads JSON; or, on any route, the body is in a content coding (a Content-Encoding other than identity, such as gzip), which the appliance does not decode: then with Accept-Encoding: identity. Refused before any work is done.",
  },
  422: { name: "IdempotencyKeyReused", code: "IDEMPOTENCY_KEY_REUSED", description: "IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was already used with a different request." },
  429: {
    name: "TooManyScreens",
    // Two codes answer 429 (QUOTA_EXCEEDED, RATE_LIMITED), so the response has a title of its own.
    title: "Too many screens",
    description:
      "QUOTA_EXCEEDED: not enough monthly screening quota left; the body carries used, limit, remaining and period. Or RATE_LIMITED: the tenant's screening rate limit (rateLimit in the configuration, off by default) admits no more screens now; the body carries rateLimit {screensPerSecond, burst, available, needed}. Either way nothing was screened or charged.",
  },
  503: {
    name: "NotReady",
    code: "NOT_READY",
    description:
      "NOT_READY: storage is being migrated, no watchlist is loaded yet, (a bearer token) the identity provider's signing keys could not be loaded to check it, another process held the database's write lock for more than 10 s, or the appliance began shutting down while the write waited for it (then with Retry-After: 1, and nothing was stored or charged), or the data folder's disk is full (then with Retry-After: 60, and nothing was stored or charged); retry shortly.",
  },
  500: {
    name: "Internal",
    code: "INTERNAL",
    description:
      "INTERNAL: an unexpected error. The server logs it under the request's correlation id (correlationId in the body, X-Correlation-Id in the header): quote it to the administrator.",
  },
} as const;

export type ProblemStatus = keyof typeof PROBLEMS;

/**
 * Problem responses by reference. A route-specific description replaces the standard one
 * (OpenAPI 3.1 lets a Reference Object carry its own description).
 */
export function problemResponses(statuses: readonly ProblemStatus[], descriptions: Partial<Record<ProblemStatus, string>> = {}): Record<string, OpenApiResponse> {
  const out: Record<string, Ref> = {};
  // A route that authenticates also answers 503 when a bearer token cannot be checked because the
  // identity provider's keys cannot be loaded (authenticate.ts).
  const all: readonly ProblemStatus[] = statuses.includes(401) && !statuses.includes(503) ? [...statuses, 503] : statuses;
  for (const status of all) {
    const reference = ref("responses", PROBLEMS[status].name);
    const description = descriptions[status];
    out[String(status)] = description === undefined ? reference : { ...reference, description };
  }
  // A Reference Object is a valid response entry; the openapi-types union for Elysia's detail omits it.
  return out as unknown as Record<string, OpenApiResponse>;
}

const PROBLEM_SCHEMA = {
  type: "object",
  description: "RFC 7807 problem details with the appliance's extensions.",
  required: ["type", "title", "status", "detail", "instance", "code", "correlationId"],
  properties: {
    type: { type: "string", description: "Problem type URI, served by the appliance itself: /problems/{slug}" },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string", description: "What went wrong, for a human" },
    instance: { type: "string", description: "The request path" },
    code: { type: "string", enum: Object.keys(ERROR_CATALOGUE), description: "Stable machine-readable code" },
    correlationId: { type: "string", description: "This request's correlation id, as in the X-Correlation-Id response header" },
    errors: {
      type: "array",
      description:
        "Validation errors only: one entry per offending field, at most 20 per value (the body, or a bulk row); past that a last entry with field \"\" counts the rest (\"has 449980 more issues, not listed\")",
      items: {
        type: "object",
        required: ["field", "message"],
        properties: { field: { type: "string", description: '"" for the body itself' }, message: { type: "string" } },
      },
    },
    used: { type: "integer", description: "429 QUOTA_EXCEEDED only: screens charged this UTC month" },
    limit: { type: "integer", description: "429 QUOTA_EXCEEDED only: the monthly quota" },
    remaining: { type: "integer", description: "429 QUOTA_EXCEEDED only" },
    period: { type: "string", description: '429 QUOTA_EXCEEDED only: the UTC month, "YYYY-MM"' },
    rateLimit: {
      type: "object",
      description: "429 RATE_LIMITED only: the tenant's rate limit, the screens it could admit now and the screens the request needed",
      required: ["screensPerSecond", "burst", "available", "needed"],
      properties: {
        screensPerSecond: { type: "number" },
        burst: { type: "integer", description: "Screens admitted at once from a full bucket" },
        available: { type: "integer" },
        needed: { type: "integer", description: "1 for a check or rescreen, the valid rows of a bulk" },
      },
    },
  },
};

const CORRELATION_ID_PATTERN = "^[A-Za-z0-9._:@/+=-]{1,128}$";

function problemComponent(status: ProblemStatus) {
  const problem = PROBLEMS[status];
  const headers: Record<string, unknown> = { "X-Correlation-Id": CORRELATION_ID_HEADER };
  if (status === 401) headers["WWW-Authenticate"] = { description: "The accepted credentials", schema: { type: "string" } };
  if (status === 503) {
    headers["Retry-After"] = {
      description:
        "1 when another process held the database's write lock (an import or an admin command): retry after a second; 60 when the data folder's disk is full. Absent for the other causes (migration, no watchlist yet, identity provider unreachable).",
      schema: { type: "integer" },
    };
  }
  if (status === 415) {
    headers["Accept-Encoding"] = { description: "identity, when the body was refused for its Content-Encoding: send it uncompressed", schema: { type: "string" } };
  }
  if (status === 429) {
    headers["Retry-After"] = {
      description:
        "QUOTA_EXCEEDED: seconds until the monthly counter resets. RATE_LIMITED: seconds until the rate limit admits the request. Absent when the request could never fit (more than the whole quota, or than the rate limit's burst).",
      schema: { type: "integer" },
    };
  }
  return {
    description: `${"title" in problem ? problem.title : ERROR_CATALOGUE[problem.code].title}. ${problem.description}`,
    headers,
    content: { [PROBLEM_CONTENT_TYPE]: { schema: ref("schemas", "Problem") } },
  };
}

/** components shared by every route's description; docs.ts merges them into the document. */
export const OPENAPI_COMPONENTS = {
  schemas: { Problem: PROBLEM_SCHEMA },
  responses: Object.fromEntries(Object.keys(PROBLEMS).map((key) => {
    const status = Number(key) as ProblemStatus;
    return [PROBLEMS[status].name, problemComponent(status)];
  })),
  parameters: {
    CorrelationId: {
      name: "X-Correlation-Id",
      in: "header",
      required: false,
      description:
        "Your id for this request, echoed in the X-Correlation-Id response header, as correlationId in every JSON object body and on the screening.completed webhook. Generated (a UUID) when absent or not of this shape.",
      schema: { type: "string", pattern: CORRELATION_ID_PATTERN },
    },
    IdempotencyKey: {
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description:
        "Optional, 1–255 printable ASCII characters, kept 24 h by default: the same key with the same request returns the original result (the screening, or a bulk's rows) with Idempotent-Replayed: true, not charged, no new webhook; with a different request, or one of another operation (check, rescreen, bulk share one key space per tenant), it is 422 IDEMPOTENCY_KEY_REUSED.",
      schema: { type: "string", pattern: "^[\\x21-\\x7e]{1,255}$" },
    },
  },
  headers: {
    CorrelationId: { description: "This request's correlation id (as sent, or generated)", schema: { type: "string" } },
  },
};

interface RouteLike {
  method: string;
  path: string;
  hooks?: unknown;
}
type Operation = Record<string, unknown> & { parameters?: unknown[]; responses?: Record<string, unknown> };
export type OpenApiDocument = { paths: Record<string, Record<string, Operation>>; components?: Record<string, unknown> } & Record<string, unknown>;

const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options", "trace"]);

function parameterKey(parameter: unknown): unknown {
  const p = parameter as { $ref?: string; name?: string; in?: string };
  return p.$ref ?? `${p.in}:${p.name?.toLowerCase()}`;
}

function mergeParameters(...lists: ReadonlyArray<readonly unknown[] | undefined>): unknown[] {
  const seen = new Set<unknown>();
  const out: unknown[] = [];
  for (const list of lists) {
    for (const parameter of list ?? []) {
      const key = parameterKey(parameter);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(parameter);
    }
  }
  return out;
}

/**
 * A generated parameter keeps its zod description in its schema only, and Swagger UI shows a
 * parameter's own description: every path id and query filter read blank in the explorer. The
 * schema's description is given to the parameter too (a new object: route details stay as they are).
 */
function describedParameter(parameter: unknown): unknown {
  if (parameter === null || typeof parameter !== "object" || "$ref" in parameter || "description" in parameter) return parameter;
  const description = (parameter as { schema?: { description?: unknown } }).schema?.description;
  return typeof description === "string" ? { ...parameter, description } : parameter;
}

function collectComponents(node: unknown, into: Record<string, unknown>, seen: Set<unknown>): void {
  if (node === null || typeof node !== "object" || seen.has(node)) return;
  seen.add(node);
  if (node instanceof SchemaComponent) {
    if (!(node.name in into)) {
      into[node.name] = node.schema();
      collectComponents(node.schema(), into, seen);
    }
    return;
  }
  for (const value of Array.isArray(node) ? node : Object.values(node)) collectComponents(value, into, seen);
}

/**
 * The problems any operation can answer, whatever it declares: 413 (the body limits apply to any
 * request with a body, a GET's included: src/http/app.ts), 415 (a body in a content coding, on any
 * route: media.ts, refuseContentCoding) and 500 (an unexpected error).
 */
const EVERY_OPERATION_PROBLEMS = problemResponses([413, 415, 500]);

/**
 * Completes the generated document: a route's declared `parameters` are kept beside the generated
 * path and query parameters (the generator replaces them), every operation gets the X-Correlation-Id
 * parameter, every declared response the X-Correlation-Id header and, unless it declares its own,
 * the 413, 415 and 500 problem responses (EVERY_OPERATION_PROBLEMS), and each SchemaComponent used
 * is published under components.schemas (those the `webhooks` entries use too). The operations are
 * fresh objects; route details are not changed.
 */
export function finishDocument(doc: OpenApiDocument, routes: readonly RouteLike[]): OpenApiDocument {
  for (const route of routes) {
    const declared = (route.hooks as { detail?: { parameters?: unknown[] } } | undefined)?.detail?.parameters;
    if (!declared) continue;
    const path = route.path.replace(/:([^/]+)/g, "{$1}");
    const operation = doc.paths[path]?.[route.method.toLowerCase()];
    if (operation) operation.parameters = mergeParameters(operation.parameters, declared);
  }
  for (const item of Object.values(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      operation.parameters = mergeParameters(operation.parameters, [PARAMETERS.correlationId]).map(describedParameter);
      if (!operation.responses) continue;
      const responses: Record<string, unknown> = {};
      for (const [status, response] of Object.entries(operation.responses)) {
        const r = response as { $ref?: string; headers?: Record<string, unknown> };
        responses[status] = r.$ref !== undefined ? r : { ...r, headers: { "X-Correlation-Id": CORRELATION_ID_HEADER, ...r.headers } };
      }
      // A route's own description of these (bulk's larger byte limit) is kept.
      for (const [status, problem] of Object.entries(EVERY_OPERATION_PROBLEMS)) responses[status] ??= problem;
      operation.responses = responses;
    }
  }
  const schemas: Record<string, unknown> = {};
  collectComponents([doc.paths, doc["webhooks"]], schemas, new Set());
  const components = (doc.components ?? {}) as { schemas?: Record<string, unknown> };
  doc.components = { ...components, schemas: { ...components.schemas, ...schemas } };
  return doc;
}
