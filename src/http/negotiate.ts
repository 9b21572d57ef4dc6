import type { Context } from "elysia";
import { ServiceError } from "@/errors";
import { requestState } from "./request-state";

/**
 * Response media types. JSON responses honour Accept: application/json by default, text/json or
 * text/plain when the client prefers one of those (the body is JSON either way). A route may offer
 * more (bulk also offers text/csv). Plain objects gain the request's correlationId.
 */
export const JSON_TYPES = ["application/json", "text/json", "text/plain"] as const;
export type JsonType = (typeof JSON_TYPES)[number];
export type Representation = JsonType | "text/csv";
/** What a route offers to `produces` (media.ts): JSON only, or JSON and CSV (JSON preferred). */
export const JSON_ONLY: readonly Representation[] = JSON_TYPES;
export const JSON_OR_CSV: readonly Representation[] = [...JSON_TYPES, "text/csv"];

interface Range {
  type: string;
  q: number;
  index: number;
}

function parseAccept(accept: string): Range[] {
  return accept.split(",").map((part, index) => {
    const [type = "", ...params] = part.trim().toLowerCase().split(";");
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    // An unreadable weight makes that range not acceptable (q=0) rather than refusing the whole header.
    return { type: type.trim(), q: Number.isFinite(q) && qParam?.slice(2).trim() !== "" ? Math.min(1, Math.max(0, q)) : 0, index };
  });
}

/**
 * How specifically `range` names `offered` (RFC 9110 §12.5.1): 3 exact, 2 type/*, 1 *\/*, 0 not at all.
 * A structured-syntax range (application/problem+json, application/*+json) accepts application/json.
 */
function specificity(range: string, offered: string): number {
  if (range === offered) return 3;
  if (range === "*/*") return 1;
  const slash = offered.indexOf("/");
  if (range === `${offered.slice(0, slash)}/*`) return 2;
  if (offered === "application/json" && range.startsWith("application/") && range.endsWith("+json")) return 2;
  return 0;
}

/**
 * The offered type the Accept header prefers, or null when it allows none. Each offered type takes
 * the weight of the most specific range naming it (so `text/csv;q=0, *\/*` excludes text/csv, and
 * `text/*;q=0.9, text/plain;q=0.1` prefers text/json); the highest weight wins, then the range listed
 * first, then the order of `offered` (the server's preference).
 */
export function negotiate<T extends string>(accept: string | null, offered: readonly T[]): T | null {
  // What fetch, curl and most clients send (and a bare type, such as text/csv): answered without parsing.
  if (accept === null || accept === "" || accept === "*/*") return offered[0] ?? null;
  const exact = offered.indexOf(accept as T);
  if (exact !== -1) return offered[exact] ?? null;
  if (accept.trim() === "") return offered[0] ?? null;
  const ranges = parseAccept(accept);
  let best: T | null = null;
  let bestQ = 0;
  let bestIndex = Number.POSITIVE_INFINITY;
  for (const type of offered) {
    let matched: Range | null = null;
    let matchedSpecificity = 0;
    for (const range of ranges) {
      const s = specificity(range.type, type);
      if (s > matchedSpecificity) {
        matched = range;
        matchedSpecificity = s;
      }
    }
    if (matched === null || matched.q === 0) continue;
    if (matched.q > bestQ || (matched.q === bestQ && matched.index < bestIndex)) {
      best = type;
      bestQ = matched.q;
      bestIndex = matched.index;
    }
  }
  return best;
}

function notAcceptable(accept: string, offered: readonly string[]): ServiceError {
  const shown = accept.length > 200 ? `${accept.slice(0, 200)}…` : accept;
  return new ServiceError("NOT_ACCEPTABLE", `This endpoint returns ${offered.join(", ")}; Accept "${shown}" allows none of them.`);
}

/** The JSON media type to answer with; 406 NOT_ACCEPTABLE when Accept allows none. */
export function negotiateJsonType(accept: string | null): JsonType {
  const type = negotiate(accept, JSON_TYPES);
  if (type === null) throw notAcceptable(accept ?? "", JSON_TYPES);
  return type;
}

/**
 * A route's response type, decided before it does any work. An explicit `format` query parameter
 * (json or csv) wins over Accept: format=csv is text/csv whatever Accept says, and format=json is JSON,
 * under the JSON type Accept prefers, else application/json. Without one, Accept chooses among
 * `offered`; 406 when it allows none.
 */
export function chooseRepresentation(accept: string | null, offered: readonly Representation[], format?: unknown): Representation {
  if (format === "csv" && offered.includes("text/csv")) return "text/csv";
  if (format === "json") return negotiate(accept, JSON_TYPES) ?? "application/json";
  const type = negotiate(accept, offered);
  if (type === null) throw notAcceptable(accept ?? "", offered);
  return type;
}

/** Decisions made before the handler ran (see media.ts), read when the response is built. */
export function rememberRepresentation(request: Request, type: Representation): void {
  requestState(request).representation = type;
}

export function decidedRepresentation(request: Request): Representation | undefined {
  return requestState(request).representation;
}

/**
 * A JSON response under the type decided before the handler ran, or, on routes that did not decide
 * one, under the type negotiated now (such a route may still answer 406 after its handler ran).
 */
export function jsonResponse(request: Request, value: object, correlationId: string, set: Context["set"]): Response {
  const body = Array.isArray(value) ? value : { ...value, correlationId };
  const headers = new Headers();
  for (const [name, headerValue] of Object.entries(set.headers)) {
    if (typeof headerValue === "string") headers.set(name, headerValue);
  }
  const early = decidedRepresentation(request);
  const type = early !== undefined && early !== "text/csv" ? early : negotiateJsonType(request.headers.get("accept"));
  headers.set("content-type", `${type}; charset=utf-8`);
  const status = typeof set.status === "number" ? set.status : 200;
  return new Response(JSON.stringify(body), { status, headers });
}
