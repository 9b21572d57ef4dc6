/**
 * Claim paths: where in an access-token payload to find roles, the tenant or the subject.
 * IdPs disagree (Keycloak nests `realm_access.roles`, Auth0/Okta use URL-named claims, Entra
 * optional claims are named `extn.<attr>`), so a path accepts three forms:
 *
 * - dotted:        `roles`, `realm_access.roles`, `resource_access.aml-api.roles`
 * - bracketed:     `["https://example.com/roles"]`, `resource_access["aml-api"].roles`, `["extn.amlTenantId"]`
 *                  (quoted with " or '; backslash escapes the quote; mixes freely with dots)
 * - JSON Pointer:  `/realm_access/roles`, `/https:~1~1example.com~1roles` (RFC 6901: ~1 is "/", ~0 is "~")
 *
 * A dotted path that contains "://" and no brackets is read as one literal claim name, because
 * namespaced claims are URLs and splitting `https://example.com/roles` on its dots is never meant.
 */
export type ClaimPath = readonly string[];

export class ClaimPathError extends Error {
  override readonly name = "ClaimPathError";
}

export function parseClaimPath(path: string): ClaimPath {
  if (path.length === 0) throw new ClaimPathError("claim path is empty");
  if (path.startsWith("/")) {
    return path
      .slice(1)
      .split("/")
      .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  }
  if (path.includes("://") && !path.includes("[")) return [path];
  return parseDotted(path);
}

function parseDotted(path: string): string[] {
  const segments: string[] = [];
  let i = 0;
  const fail = (why: string): never => {
    throw new ClaimPathError(`invalid claim path ${JSON.stringify(path)} at ${i}: ${why}`);
  };
  while (i < path.length) {
    if (path[i] === "[") {
      const quote = path[i + 1];
      if (quote !== '"' && quote !== "'") fail("expected a quoted name after [");
      let name = "";
      i += 2;
      while (i < path.length && path[i] !== quote) {
        if (path[i] === "\\" && i + 1 < path.length) i++;
        name += path[i];
        i++;
      }
      if (path[i] !== quote || path[i + 1] !== "]") fail("unterminated [\"…\"]");
      segments.push(name);
      i += 2;
    } else {
      let end = i;
      while (end < path.length && path[end] !== "." && path[end] !== "[") end++;
      if (end === i) fail("empty name");
      segments.push(path.slice(i, end));
      i = end;
    }
    if (i < path.length) {
      if (path[i] === ".") {
        i++;
        if (i === path.length) fail("trailing dot");
      } else if (path[i] !== "[") fail("expected . or [");
    }
  }
  return segments;
}

/** Reads own properties only, so a path like `__proto__.x` can never reach inherited objects. */
export function readClaim(payload: unknown, path: ClaimPath): unknown {
  let node: unknown = payload;
  for (const segment of path) {
    if (node === null || typeof node !== "object" || Array.isArray(node) || !Object.hasOwn(node, segment)) {
      return undefined;
    }
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/**
 * OAuth's own space-delimited claims (RFC 6749 §3.3 `scope`; `scp` as Entra and Okta emit it): only a
 * roles path ending in one of these splits a string on spaces.
 */
const SPACE_DELIMITED_CLAIMS = new Set(["scope", "scp"]);

/** Whether a string at `path` is a space-delimited list (see SPACE_DELIMITED_CLAIMS). */
export function isSpaceDelimitedClaim(path: ClaimPath): boolean {
  return SPACE_DELIMITED_CLAIMS.has(path.at(-1) ?? "");
}

/**
 * Roles as a string array. A list keeps its non-empty strings. A string is one role name, as
 * written: splitting it would make "not admin" or "auditor-but-not admin" (a group's display name
 * mapped to a single-valued claim) grant admin. Only a space-delimited claim (`scope`, `scp`) is
 * split. Anything else yields no roles, which fails closed at the policy check (403), not here.
 */
export function claimAsStringList(value: unknown, spaceDelimited = false): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string" && v.length > 0);
  if (typeof value === "string") return spaceDelimited ? value.split(/\s+/).filter((v) => v.length > 0) : value.length > 0 ? [value] : [];
  return [];
}

/** A single string; a one-element array is unwrapped because Keycloak attribute mappers may emit lists. */
export function claimAsString(value: unknown): string | null {
  const single = Array.isArray(value) && value.length === 1 ? value[0] : value;
  return typeof single === "string" && single.length > 0 ? single : null;
}
