/**
 * Canonical JSON: object keys sorted, no insignificant whitespace, undefined dropped.
 * Hash chains hash this form so that the same entry always yields the same bytes.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortDeep(value));
}

function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep);
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    // No prototype: a parsed "__proto__" key (client input, hashed by an Idempotency-Key) must stay a
    // property here; on a plain object the assignment would set the prototype and drop the key.
    const out: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortDeep(v);
    }
    return out;
  }
  return value;
}
