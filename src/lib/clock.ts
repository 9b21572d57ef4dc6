/** Time source passed in, so tests can move across a month boundary without waiting. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** "YYYY-MM" of the UTC calendar month: the quota period. */
export function utcMonth(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** The start of the next UTC calendar month, when the quota period (utcMonth) rolls over. */
export function startOfNextUtcMonth(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/** Whole seconds from `at` to startOfNextUtcMonth(at), at least 1. */
export function secondsUntilNextUtcMonth(at: Date): number {
  return Math.max(1, Math.ceil((startOfNextUtcMonth(at).getTime() - at.getTime()) / 1000));
}
