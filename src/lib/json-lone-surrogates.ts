/**
 * Where a parsed JSON value holds a string (a value or a member name) that is not well-formed UTF-16,
 * or null. JSON lets "\ud800" escape half a surrogate pair; JSON.parse keeps the lone half, and it
 * cannot be stored or sent as UTF-8: SQLite and the response encoder each replace it with U+FFFD, in
 * different places, so the record read back differed from the answer given (a reference the client
 * cannot find). I-JSON (RFC 7493, section 2.1) forbids such strings; the API follows I-JSON here.
 *
 * Raw UTF-8 (already decoded strictly) cannot carry a lone surrogate, only a `\u` escape can, so the
 * value is walked only when the text holds an escape of one: the common body costs one regex test.
 * The path is written as problem bodies name fields (issuePath): "fullName", "[3].fullName", "options.x";
 * "" is the value itself (a top-level string).
 */
export function firstLoneSurrogate(text: string, value: unknown): string | null {
  if (!SURROGATE_ESCAPE_RE.test(text)) return null;
  return walk(value, "");
}

// `\uD800`-`\uDFFF` in either case; an escaped backslash before the u ("\\ud800") is only a false alarm.
const SURROGATE_ESCAPE_RE = /\\u[dD][89a-fA-F]/;

function walk(value: unknown, path: string): string | null {
  if (typeof value === "string") return value.isWellFormed() ? null : path;
  if (typeof value !== "object" || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = walk(value[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, member] of Object.entries(value)) {
    const at = path === "" ? key : `${path}.${key}`;
    // The name itself is shown with U+FFFD for the lone half: the path goes into a UTF-8 response.
    if (!key.isWellFormed()) return at.toWellFormed();
    const found = walk(member, at);
    if (found !== null) return found;
  }
  return null;
}

/** What is wrong with the string at `path` ("" for a top-level string), said for the request body and a JSONL line alike. */
export function loneSurrogateDetail(path: string): string {
  const where = path === "" ? "the value" : path;
  return `${where} escapes half a UTF-16 surrogate pair (such as \\ud800 without its partner), which is no character and cannot be stored; send text as UTF-8 or escape whole pairs.`;
}
