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
  [null, null],
])("%p → %p", (raw, expected) => {
  expect(publishedAtUtc(raw)).toBe(expected);
});
