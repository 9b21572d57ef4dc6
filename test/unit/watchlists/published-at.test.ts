import { expect, test } from "bun:test";
import { publishedAtUtc } from "@/watchlists/published-at";

test.each([
  ["2025-01-15", "2025-01-15T00:00:00.000Z"],
  ["2025-01-15T00:00:00", "2025-01-15T00:00:00.000Z"],
  ["2025-01-15T10:30", "2025-01-15T10:30:00.000Z"],
  ["2025-01-15T00:00:00.000Z", "2025-01-15T00:00:00.000Z"],
  ["2025-01-15T02:00:00+02:00", "2025-01-15T00:00:00.000Z"],
  [" 2025-01-15 ", "2025-01-15T00:00:00.000Z"],
  ["not a date", "not a date"],
  // Not ISO 8601: kept as written rather than read in the server's time zone.
  ["01/02/2025", "01/02/2025"],
  ["2025-01-15 10:00:00", "2025-01-15 10:00:00"],
  ["2025-01-15T10:00:00+0100", "2025-01-15T09:00:00.000Z"],
  [null, null],
])("%p → %p", (raw, expected) => {
  expect(publishedAtUtc(raw)).toBe(expected);
});
