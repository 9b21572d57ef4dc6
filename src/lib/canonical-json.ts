/**
 * Canonical JSON: object keys sorted, no insignificant whitespace, undefined dropped.
 * Hash chains hash this form so that the same entry always yields the same bytes.
 *
 * The text is exactly what `JSON.stringify` writes for a copy of the value with every object's keys
 * inserted in sorted order (so integer-like keys come first, ascending, as JavaScript enumerates
 * them): the audit chain's stored hashes were computed that way and must verify unchanged. It is
 * written with a stack of its own rather than by recursion, because an Idempotency-Key hashes
 * client input as sent, and a bulk row nested 30,000 arrays deep overflowed the call stack (a 500
 * where the same request without a key gets its row refused). Inputs are JSON values as parsed or
 * built by this code: a Date's toJSON is honoured, no other object's, and a cycle is refused with a
 * TypeError, as JSON.stringify refuses it.
 */
export interface CanonicalJsonOptions {
  /**
   * Write Infinity, -Infinity and NaN as those bare words, where JSON.stringify writes null. The text
   * is then not JSON, but values that differ only there no longer give the same text: a request hash
   * must tell a row's `1e999` (Infinity once parsed) from its `null`.
   */
  nonFiniteAsWords?: boolean;
}

type Frame =
  | { kind: "array"; items: readonly unknown[]; next: number }
  | { kind: "object"; source: Readonly<Record<string, unknown>>; keys: readonly string[]; next: number; written: boolean };

/** What JSON.stringify leaves out of an object and writes as null in an array. */
const isOmitted = (value: unknown): boolean => value === undefined || typeof value === "function" || typeof value === "symbol";

/** Keys in the order JSON.stringify would write them after a sorted insertion (integer-like ones first). */
function sortedKeys(value: object): string[] {
  const ordered: Record<string, true> = Object.create(null);
  for (const key of Object.keys(value).sort()) ordered[key] = true;
  return Object.keys(ordered);
}

export function canonicalJson(value: unknown, options: CanonicalJsonOptions = {}): string {
  if (isOmitted(value)) return JSON.stringify(value);
  const parts: string[] = [];
  const stack: Frame[] = [];
  /** The arrays and objects being written (those of the stack): meeting one again is a cycle. */
  const open = new Set<object>();
  const enter = (item: object): void => {
    if (open.has(item)) throw new TypeError("canonicalJson: the value is circular");
    open.add(item);
  };
  const write = (item: unknown): void => {
    if (Array.isArray(item)) {
      enter(item);
      parts.push("[");
      stack.push({ kind: "array", items: item, next: 0 });
    } else if (item !== null && typeof item === "object" && !(item instanceof Date)) {
      enter(item);
      parts.push("{");
      stack.push({ kind: "object", source: item as Record<string, unknown>, keys: sortedKeys(item), next: 0, written: false });
    } else if (typeof item === "number" && !Number.isFinite(item) && options.nonFiniteAsWords === true) {
      parts.push(String(item));
    } else {
      // Strings, finite numbers, booleans, null and Dates (their toJSON); a BigInt throws, as in JSON.stringify.
      parts.push(JSON.stringify(item));
    }
  };
  write(value);
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as Frame;
    if (top.kind === "array") {
      if (top.next === top.items.length) {
        parts.push("]");
        open.delete(top.items);
        stack.pop();
        continue;
      }
      if (top.next > 0) parts.push(",");
      const item = top.items[top.next++];
      if (isOmitted(item)) parts.push("null");
      else write(item);
      continue;
    }
    while (top.next < top.keys.length && isOmitted(top.source[top.keys[top.next] as string])) top.next++;
    if (top.next === top.keys.length) {
      parts.push("}");
      open.delete(top.source);
      stack.pop();
      continue;
    }
    const key = top.keys[top.next++] as string;
    if (top.written) parts.push(",");
    top.written = true;
    parts.push(JSON.stringify(key), ":");
    write(top.source[key]);
  }
  return parts.join("");
}
