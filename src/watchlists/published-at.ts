/**
 * A list's publication date as one ISO 8601 date-time in UTC. Publishers write it their own way:
 * a date (OFAC, the UK sheet), a date-time with an offset (EU), a date-time without one (UN, the
 * UK FCDO file). The spec makes every timestamp an ISO 8601 date-time, and dates compared as text
 * must share one form. A date means its first instant, UTC; a date-time without an offset is read
 * as UTC, the publishers' own convention. Text that is no date is kept as written rather than lost.
 */
export function publishedAtUtc(raw: string | null): string | null {
  if (raw === null) return null;
  const text = raw.trim();
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const noOffset = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text);
  const time = Date.parse(dateOnly ? `${text}T00:00:00Z` : noOffset ? `${text}Z` : text);
  return Number.isNaN(time) ? raw : new Date(time).toISOString();
}
