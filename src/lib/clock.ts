/** Time source passed in, so tests can move across a month boundary without waiting. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** "YYYY-MM" of the UTC calendar month: the quota period. */
export function utcMonth(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** Whole seconds from `at` to the start of the next UTC calendar month, when the quota period (utcMonth) rolls over. */
export function secondsUntilNextUtcMonth(at: Date): number {
  const next = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - at.getTime()) / 1000));
}
