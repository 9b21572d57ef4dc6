import type { Context } from "elysia";
import { ServiceError } from "@/errors";

/**
 * JSON responses honour Accept: application/json by default, text/json or text/plain when the client
 * prefers one of those (the body is JSON either way). Plain objects gain the request's correlationId.
 */
const JSON_TYPES = ["application/json", "text/json", "text/plain"] as const;

export function negotiateJsonType(accept: string | null): (typeof JSON_TYPES)[number] {
  if (!accept?.trim()) return "application/json";
  // What fetch, curl and most clients send: answered without parsing the header.
  if (accept === "*/*" || accept === "application/json") return "application/json";
  const entries = accept.split(",").map((part, index) => {
    const [type = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return { type: type.trim(), q: q ? Number(q.slice(2)) : 1, index };
  });
  // q=0 means "not this type" (RFC 9110 §12.4.2): a wildcard must not bring an excluded type back.
  const excluded = new Set(entries.filter((e) => e.q === 0).map((e) => e.type));
  const allowed = (type: (typeof JSON_TYPES)[number]) => !excluded.has(type);
  const ranked = entries.filter((entry) => entry.q > 0).sort((a, b) => b.q - a.q || a.index - b.index);
  for (const entry of ranked) {
    const named = JSON_TYPES.find((t) => t === entry.type);
    if (named && allowed(named)) return named;
    if (entry.type === "*/*") {
      const first = JSON_TYPES.find(allowed);
      if (first) return first;
    }
    if ((entry.type === "application/*" || entry.type.endsWith("+json")) && allowed("application/json")) return "application/json";
    if (entry.type === "text/*") {
      const text = (["text/plain", "text/json"] as const).find(allowed);
      if (text) return text;
    }
  }
  throw new ServiceError("NOT_ACCEPTABLE", `This endpoint returns JSON; Accept "${accept}" allows none of ${JSON_TYPES.join(", ")}.`);
}

export function jsonResponse(request: Request, value: object, correlationId: string, set: Context["set"]): Response {
  const body = Array.isArray(value) ? value : { ...value, correlationId };
  const headers = new Headers();
  for (const [name, headerValue] of Object.entries(set.headers)) {
    if (typeof headerValue === "string") headers.set(name, headerValue);
  }
  headers.set("content-type", `${negotiateJsonType(request.headers.get("accept"))}; charset=utf-8`);
  const status = typeof set.status === "number" ? set.status : 200;
  return new Response(JSON.stringify(body), { status, headers });
}
