/** UUIDv7: the spec makes every id a UUID; v7 sorts by creation time, so rows order without an extra column. */
export function newId(): string {
  return Bun.randomUUIDv7();
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/**
 * An id as a caller sent it, in the form ids are stored: every id is a UUID generated lower case, and a
 * UUID's hex digits are case-insensitive, so an upper-case copy names the same row. Anything that is
 * not a UUID is kept as sent (and matches nothing).
 */
export function storedId(id: string): string {
  return isUuid(id) ? id.toLowerCase() : id;
}
