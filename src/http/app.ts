import { type AnyElysia, Elysia } from "elysia";
import { readCapped } from "@/lib/read-capped";
import { type FieldIssue, ServiceError } from "@/errors";
import { issueSummary, zodIssues } from "@/lib/validate";
import { isDatabaseBusy, isStorageFull } from "@/storage/db";
import { GroupCommitClosed } from "@/storage/group-commit";
import { authorizeAdmin, authorizeTenant } from "@/auth/authorize";
import { isRole } from "@/auth/roles";
import { type BodyRule, bodyLimitKey, declaredBodyRules } from "./body-limits";
import { principalBeforeBody } from "./authenticate";
import { apiDocs } from "./docs";
import type { HttpDeps } from "./deps";
import { inContentCoding, isJsonMediaType, MalformedJson, readJsonText, refuseContentCoding, UNREAD } from "./media";
import { jsonResponse } from "./negotiate";
import { refuseUndecodableQuery } from "./query-encoding";
import { literalRouteElsewhere, notInThisVersion, type RouteTable, routeNotFound, routeTable } from "./route-table";
import { problemResponse } from "./problem";
import { beginRequest, requestState } from "./request-state";
import { auditRoutes } from "./routes/audit";
import { REPEATED_PARAMETER } from "./paging";
import { healthRoutes } from "./routes/health";
import { policyRoutes } from "./routes/policies";
import { problemRoutes } from "./routes/problems";
import { tenantRoutes } from "./routes/tenants";
import { usageRoutes } from "./routes/usage";

type ElysiaError = Error & { code?: unknown; status?: number; validator?: unknown; value?: unknown; type?: string };

/**
 * Builds the HTTP application without listening, so tests can drive it in-process and main.ts can serve it.
 * Cross-cutting conventions live here: correlation ids, body limits, JSON parsing, problem+json errors,
 * 404/405 for unknown routes, access logs. Response and request media types are settled per route
 * (media.ts), before the handler runs.
 */
export function createApp(deps: HttpDeps) {
  let table: RouteTable | null = null;
  /** Filled once every route is in place (the end of this function), before any request arrives. */
  let bodyRules = new Map<string, BodyRule>();
  const jsonLimit = deps.config.maxJsonBodyBytes;
  /** The route's body rule (body-limits.ts), looked up for a multipart body or one over maxJsonBodyBytes or without a Content-Length. */
  const bodyRuleFor = (request: Request): BodyRule | undefined => bodyRules.get(bodyLimitKey(request.method, new URL(request.url).pathname));
  const app = new Elysia()
    .onRequest(({ request }) => {
      beginRequest(request);
      enforceBodyLimit(request, deps, bodyRuleFor);
    })
    .onParse(async ({ request, contentType }) => {
      // Refused with 415 once the guard has run (refuseMalformedInput), and never read: not buffered,
      // and not parsed as multipart into a 400 on the list upload.
      if (inContentCoding(request)) return UNREAD;
      const declared = declaredLength(request);
      // Elysia parses before the guard's transform authenticates. Anyone may make the server read up
      // to maxJsonBodyBytes; a route that takes more (bulk's JSON, the list upload's multipart, which
      // Elysia reads in full up to maxUploadBytes) reads more only for a caller its policy admits. So
      // a body that may be larger (declared larger, or chunked) is authorized first on such a route:
      // 401 or 403 before a byte of it is read; the guard authenticates again once it is in. A body
      // declared within maxJsonBodyBytes takes none of this.
      const mayBeLarge = (declared === null || declared > jsonLimit) && request.body !== null;
      if (contentType.startsWith("multipart/form-data")) {
        // Returning nothing lets Elysia read the upload; only a route that takes one gets that. Any
        // other route gets its multipart body unread: a JSON route answers 415 (media.ts), a route
        // that takes no body ignores it.
        const rule = bodyRuleFor(request);
        if (!rule?.multipart) return UNREAD;
        if (mayBeLarge) await authorizeBeforeBody(deps, request, rule);
        return;
      }
      let limit = jsonLimit;
      const rule = mayBeLarge ? bodyRuleFor(request) : undefined;
      if (rule?.maxJsonBytes && rule.maxJsonBytes > jsonLimit) {
        limit = rule.maxJsonBytes;
        await authorizeBeforeBody(deps, request, rule);
      }
      const bytes = await readLimited(request, limit, declared);
      // Any other body (text, CSV, unknown) is read under the same limit and the same rule, so no body
      // an unauthenticated client sends is buffered past maxJsonBodyBytes. JSON routes refuse it with 415.
      const json = isJsonMediaType(contentType);
      // JSON is UTF-8 whatever charset a Content-Type names (RFC 8259 section 8.1), and a body without
      // a Content-Type is read as JSON (media.ts). Decoded with replacement, "J\xfcrgen" (Latin-1) was
      // screened and stored for good as "J\ufffdrgen": a name the client never sent.
      if (!json && contentType !== "") return LENIENT_UTF8.decode(bytes);
      const text = strictUtf8(bytes);
      if (text === null) return new MalformedJson("it is not UTF-8 text; send JSON encoded as UTF-8, whatever charset the Content-Type names");
      return json ? readJsonText(text) : text;
    })
    // After every route's guard (transform hooks run before any beforeHandle): a caller without a
    // valid credential gets 401, not a 400 about a body or a query it may not send.
    .onBeforeHandle(function refuseMalformedInput({ body, request }) {
      // First: a compressed body is not malformed JSON but one the appliance does not decode.
      refuseContentCoding(request);
      if (body instanceof MalformedJson) throw body.problem();
      refuseUndecodableQuery(request);
    })
    .onError(({ request, error, code }) => {
      const state = requestState(request);
      table ??= routeTable(app);
      const serviceError = toServiceError(error as ElysiaError, code, request, table);
      if (serviceError.status >= 500) {
        // A refusal the appliance chose (503 NOT_READY: no watchlist imported yet, a snapshot still
        // loading) is a warning with its code and detail, not an error with a stack trace: before the
        // first import every screen gets one. An exception turned into a 5xx keeps its stack.
        // Chosen: toServiceError answered with the ServiceError that was thrown (for a refusal thrown
        // before the body was read, the one Elysia's ParseError wraps), not one it made of an exception.
        const chosen = serviceError === error || serviceError === (error as { cause?: unknown }).cause;
        if (chosen && serviceError.status !== 500) {
          deps.log.warn({ correlationId: state.correlationId, code: serviceError.code, status: serviceError.status, detail: serviceError.message }, "request not served");
        } else {
          deps.log.error({ correlationId: state.correlationId, err: error }, "request failed");
        }
      }
      state.status = serviceError.status;
      return problemResponse(serviceError, new URL(request.url).pathname, state.correlationId);
    })
    .mapResponse(({ request, responseValue, set }) => {
      const state = requestState(request);
      set.headers["x-correlation-id"] = state.correlationId;
      if (responseValue instanceof Response) {
        if (!responseValue.headers.has("x-correlation-id")) responseValue.headers.set("x-correlation-id", state.correlationId);
        return responseValue;
      }
      if (responseValue !== null && typeof responseValue === "object") {
        return jsonResponse(request, responseValue, state.correlationId, set);
      }
      return undefined;
    })
    .onAfterResponse(({ request, set, responseValue }) => {
      // The entry (a URL parse and an object per request) is built only when it will be written.
      if (!deps.log.isLevelEnabled("info")) return;
      const state = requestState(request);
      const status = state.status ?? (responseValue instanceof Response ? responseValue.status : Number(set.status ?? 200));
      // Who called, once authenticated (an API key's id or a token's subject, never a secret), so a
      // refused call (403: an analyst's key on an admin route) can be traced to its credential.
      const caller = state.principal;
      deps.log.info(
        {
          correlationId: state.correlationId,
          tenantId: state.tenantId ?? caller?.tenantId ?? undefined,
          actor: caller ? `${caller.actor.type}:${caller.actor.id}` : undefined,
          // Only the roles the appliance knows: a roles claim mapped to a directory's groups can hold hundreds.
          roles: caller?.roles.filter(isRole),
          method: request.method,
          // Path only: query strings may carry subject names (case search), which never enter logs.
          // The URL is absolute: server.ts hands the app only requests routableRequest made so.
          path: new URL(request.url).pathname,
          status,
          durationMs: Math.round((performance.now() - state.startedAt) * 100) / 100,
        },
        "request",
      );
    })
    .use(apiDocs(deps, (): AnyElysia => app))
    .use(healthRoutes(deps))
    .use(problemRoutes())
    .use(policyRoutes((): AnyElysia => app))
    .use(usageRoutes(deps))
    .use(auditRoutes(deps))
    .use(tenantRoutes(deps));
  for (const extend of deps.extraRoutes ?? []) app.use(extend(deps));
  // Read now, with every route in place: a route that declares a body rule it may not have (a
  // parameterised path, no policy) stops the server at startup, not its first large request.
  bodyRules = declaredBodyRules(app);
  return app;
}

export type App = ReturnType<typeof createApp>;

/** The request's Content-Length when it is a plain byte count and governs the body, else null (a chunked body). */
function declaredLength(request: Request): number | null {
  const header = request.headers.get("content-length");
  if (header === null || !/^\d+$/.test(header) || request.headers.has("transfer-encoding")) return null;
  return Number(header);
}

function enforceBodyLimit(request: Request, deps: HttpDeps, bodyRuleFor: (request: Request) => BodyRule | undefined): void {
  const length = declaredLength(request) ?? 0;
  const jsonLimit = deps.config.maxJsonBodyBytes;
  if (length <= jsonLimit) return;
  const rule = bodyRuleFor(request);
  const multipart = (request.headers.get("content-type") ?? "").startsWith("multipart/form-data");
  // A multipart body is limited by maxUploadBytes on an upload route; elsewhere it is never read, and
  // is judged by the JSON limit like any other body, so a large one is 413 from its Content-Length.
  const limit = multipart && rule?.multipart ? deps.config.maxUploadBytes : Math.max(jsonLimit, rule?.maxJsonBytes ?? 0);
  if (length > limit) {
    throw new ServiceError("PAYLOAD_TOO_LARGE", `The request body is ${length} bytes; the limit for this route and content type is ${limit} bytes.`);
  }
}

/**
 * Authenticates and authorizes the caller for the route's policy before a body over maxJsonBodyBytes
 * is read (the guard would only do so after parsing). Throws the guard's 401 or 403 when that fails;
 * the guard checks the credential again once the body is in (principalOf).
 */
async function authorizeBeforeBody(deps: HttpDeps, request: Request, rule: BodyRule): Promise<void> {
  const principal = await principalBeforeBody(deps, request);
  if (rule.policy === "Admin") authorizeAdmin(principal);
  else authorizeTenant(deps.db, principal, rule.policy);
}

const LENIENT_UTF8 = new TextDecoder();
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The bytes as UTF-8 text, or null when they are not UTF-8. A leading byte-order mark is dropped. */
function strictUtf8(bytes: Uint8Array): string | null {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return null;
  }
}

/** Reads a body up to `limit` bytes; a chunked body without Content-Length is cut off at the limit too. */
async function readLimited(request: Request, limit: number, declared: number | null): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  // With a Content-Length within the limit the body is read whole: the server reads exactly that many
  // bytes. Reading it through the stream reader below allocated some 270 KB per request (700 KB for
  // one that failed validation) in large buffers, which alone set off most of the young-generation
  // collections under load (docs/benchmark-log.md, seventh stop).
  if (declared !== null && declared <= limit) return await request.bytes();
  const bytes = await readCapped(request.body, limit);
  if (bytes === null) throw new ServiceError("PAYLOAD_TOO_LARGE", `The request body exceeds the limit of ${limit} bytes.`);
  return bytes;
}

function toServiceError(error: ElysiaError, code: unknown, request: Request, table: RouteTable): ServiceError {
  // A route's own 404 on a path of a later feature (GET /v1/screenings/batch reaches GET
  // /v1/screenings/{id} with the id "batch") says what an unmatched path there says; on a path that
  // is another method's route (GET /v1/screenings/check), the 405 that method gets.
  if (error instanceof ServiceError) {
    if (error.code !== "NOT_FOUND") return error;
    const path = new URL(request.url).pathname;
    return notInThisVersion(request.method, path) ?? literalRouteElsewhere(table, request.method, path) ?? error;
  }
  if (code === "VALIDATION") return undecodablePathSegment(error, request) ?? validationError(error);
  if (code === "PARSE") {
    // Elysia wraps whatever onParse throws (413 over the limit, MALFORMED_JSON with its reason) in a ParseError.
    if (error.cause instanceof ServiceError) return error.cause;
    // Only an upload route has Elysia read its multipart body (onParse returns nothing for it); what
    // fails there is the form, not JSON.
    if ((request.headers.get("content-type") ?? "").toLowerCase().startsWith("multipart/form-data")) return malformedMultipart();
    return new ServiceError("MALFORMED_JSON", "The request body could not be parsed.");
  }
  if (code === "NOT_FOUND") {
    return routeNotFound(table, request);
  }
  if (typeof error.status === "number" && error.status === 413) {
    return new ServiceError("PAYLOAD_TOO_LARGE", "The request body is too large.");
  }
  if (error instanceof GroupCommitClosed) {
    // The server stopped waiting for the write lock to shut down: nothing was written. Before
    // isDatabaseBusy, which would read the busy lock in its cause as the reason.
    return new ServiceError("NOT_READY", "The appliance is shutting down; nothing was stored. Retry shortly.", {
      headers: { "retry-after": "1" },
      cause: error,
    });
  }
  if (isDatabaseBusy(error)) {
    // Another process held the write lock past busy_timeout (an import or admin command stalled
    // mid-transaction). Nothing was written or acknowledged: a retry is the right answer, not a 500.
    return new ServiceError("NOT_READY", "The database is locked by another process (a list import or an admin command); nothing was stored. Retry shortly.", {
      headers: { "retry-after": "1" },
      cause: error,
    });
  }
  if (isStorageFull(error)) {
    // Logged at error level like any 5xx: the administrator must free space. The client is told that
    // nothing was stored or charged, and to retry, rather than handed an opaque 500.
    return new ServiceError("NOT_READY", "The appliance's disk is full: nothing was stored or charged. Retry once the administrator has freed space.", {
      headers: { "retry-after": "60" },
      cause: error,
    });
  }
  return new ServiceError("INTERNAL", "An internal error occurred; quote the correlation id to your administrator.", {
    cause: error,
  });
}

function malformedMultipart(): ServiceError {
  return new ServiceError(
    "INVALID_INPUT",
    "The request body is not a valid multipart/form-data form (a missing or wrong boundary, or a truncated part); send the files as multipart/form-data parts named file.",
  );
}

/**
 * A path segment whose percent-encoding is not UTF-8 (`/v1/tenants/%FF`) reaches the route as a null
 * param, which read "params.id must be a string, not null". No id is such a segment, so it is the
 * 404 any unknown id gets.
 */
function undecodablePathSegment(error: ElysiaError, request: Request): ServiceError | null {
  if (error.type !== "params" || typeof error.value !== "object" || error.value === null) return null;
  if (!Object.values(error.value).some((v) => v === null || v === undefined)) return null;
  return new ServiceError("NOT_FOUND", `Nothing is at ${new URL(request.url).pathname}: a path segment is not percent-encoded UTF-8, so it names nothing.`);
}

type SafeParser = { safeParse: (v: unknown) => { success: boolean; error?: unknown } };

function zodSchemaOf(validator: unknown): SafeParser | null {
  // Elysia wraps a Standard Schema in its own validator (which also has a safeParse of another shape);
  // the zod schema itself sits in `.schema` and is recognised by zod's `_zod` marker.
  const candidates = [(validator as { schema?: unknown } | undefined)?.schema, validator];
  for (const candidate of candidates) {
    if (candidate && typeof candidate === "object" && "_zod" in candidate) return candidate as unknown as SafeParser;
  }
  return null;
}

/**
 * A parameter given twice (`status=dead&status=pending`) arrives as a list, and its schema's own
 * message ("must be one of pending, …") would tell the caller the values were wrong when each was
 * right. Such a field's issues become one that says what happened, as paging.ts says it of skip/take.
 */
function repeatedParameters(issues: readonly FieldIssue[], query: unknown): FieldIssue[] {
  if (query === null || typeof query !== "object") return [...issues];
  const repeated = (field: string) => Array.isArray((query as Record<string, unknown>)[field]);
  const out: FieldIssue[] = [];
  for (const issue of issues) {
    if (!repeated(issue.field)) out.push(issue);
    else if (!out.some((i) => i.field === issue.field)) out.push({ field: issue.field, message: REPEATED_PARAMETER });
  }
  return out;
}

/** Re-runs the route's zod schema on the rejected value to report every offending field by name. */
function validationError(error: ElysiaError): ServiceError {
  const where = error.type ?? "request";
  const schema = zodSchemaOf(error.validator);
  let fieldIssues: FieldIssue[] = [];
  if (schema) {
    const result = schema.safeParse(error.value);
    if (!result.success && result.error) fieldIssues = zodIssues(result.error as Parameters<typeof zodIssues>[0]);
  } else {
    const all = (error as { all?: Array<{ path?: string; message?: string }> }).all ?? [];
    fieldIssues = all.map((e) => ({ field: (e.path ?? "").replace(/^\//, "").replaceAll("/", "."), message: e.message ?? "is invalid" }));
  }
  if (where === "query") fieldIssues = repeatedParameters(fieldIssues, error.value);
  if (where !== "body") fieldIssues = fieldIssues.map((i) => ({ ...i, field: i.field ? `${where}.${i.field}` : where }));
  const summary = issueSummary(fieldIssues, where);
  return new ServiceError("VALIDATION_FAILED", `The ${where} is invalid${summary ? `: ${summary}` : "."}`, { fieldIssues });
}
