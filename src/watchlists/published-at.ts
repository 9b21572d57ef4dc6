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
  // Only ISO 8601 forms are read: Date.parse would read anything else ("01/02/2025", a space
  // instead of the T) in the server's own time zone, and the date would depend on where it runs.
  let iso: string | null = null;
  if (DATE_ONLY.test(text)) iso = `${text}T00:00:00Z`;
  else if (NO_OFFSET.test(text)) iso = `${text}Z`;
  else if (WITH_OFFSET.test(text)) iso = text;
  const time = iso === null ? Number.NaN : Date.parse(iso);
  return Number.isNaN(time) ? raw : new Date(time).toISOString();
}

/**
 * The instant a list was published, in milliseconds, or null when it carries no date or text that
 * is no ISO 8601 date (read through publishedAtUtc). Every comparison of publication dates goes
 * through here: Date.parse alone reads "Week 47" as the year 2047, and a date with a space instead
 * of the T in the server's time zone, so an undated list could pass for a fresh one, and a stored
 * screening could read differently on another host.
 */
export function publishedAtMs(publishedAt: string | null): number | null {
  const utc = publishedAtUtc(publishedAt);
  return utc !== null && UTC_INSTANT.test(utc) ? Date.parse(utc) : null;
}

/**
 * Whole days between the publication date and `now` (rounded down); null without a date. The age
 * that maxDataAgeDays is compared with: a list is stale when its age is more than the limit.
 */
export function ageInDays(publishedAt: string | null, now: Date): number | null {
  const at = publishedAtMs(publishedAt);
  return at === null ? null : Math.floor((now.getTime() - at) / DAY_MS);
}

const DAY_MS = 86_400_000;
/** The form publishedAtUtc writes (toISOString). */
const UTC_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const NO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
