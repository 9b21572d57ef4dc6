import { ServiceError } from "@/errors";

/**
 * Refuses a query string whose percent-encoding does not decode as UTF-8 (`?label=%ED%A0%80`, `%FF`,
 * a lone `%`): Elysia keeps such a value as the literal text, so `%ED%A0%80` was stored as a label
 * of nine characters nobody typed. 400 VALIDATION_FAILED names `query.<name>`. Runs after the
 * route's guard (401/403 first) and its query validation; a query without a `%` costs one indexOf.
 */
export function refuseUndecodableQuery(request: Request): void {
  const url = request.url;
  const start = url.indexOf("?");
  if (start === -1 || url.indexOf("%", start) === -1) return;
  for (const pair of url.slice(start + 1).split("&")) {
    if (!pair.includes("%")) continue;
    const equals = pair.indexOf("=");
    const rawName = equals === -1 ? pair : pair.slice(0, equals);
    const name = decoded(rawName);
    if (name === null || (equals !== -1 && decoded(pair.slice(equals + 1)) === null)) throw undecodable(name ?? rawName);
  }
}

/** A form-encoded query component as text ('+' is a space), or null when its escapes are not UTF-8. */
function decoded(component: string): string | null {
  try {
    return decodeURIComponent(component.replaceAll("+", " "));
  } catch {
    return null;
  }
}

function undecodable(name: string): ServiceError {
  const field = `query.${name}`;
  const message = "is not percent-encoded UTF-8; encode the text as UTF-8, then percent-encode each byte";
  return new ServiceError("VALIDATION_FAILED", `The query is invalid: ${field} ${message}`, { fieldIssues: [{ field, message }] });
}
