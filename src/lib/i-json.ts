import { firstDuplicateKey } from "./json-duplicate-keys";
import { firstLoneSurrogate, loneSurrogateDetail } from "./json-lone-surrogates";

/** A member named twice in one object (its name, and where), or what is wrong with a lone surrogate. */
export type IJsonProblem = { kind: "repeatedName"; key: string; path: string } | { kind: "loneSurrogate"; detail: string };

/**
 * What I-JSON (RFC 7493) refuses in a text JSON.parse accepted: an object naming a member twice
 * (JSON.parse keeps the last silently, so which was meant is in doubt) or a string escaping half a
 * surrogate pair (stored as U+FFFD, a value never sent). Null when the text has neither. One rule for
 * HTTP bodies (http/media.ts) and JSONL lines (screening/subject-file.ts), each wording it.
 */
export function iJsonProblem(text: string, value: unknown): IJsonProblem | null {
  if (typeof value === "object" && value !== null) {
    const repeated = firstDuplicateKey(text);
    if (repeated !== null) return { kind: "repeatedName", ...repeated };
  }
  const broken = firstLoneSurrogate(text, value);
  return broken === null ? null : { kind: "loneSurrogate", detail: loneSurrogateDetail(broken) };
}
