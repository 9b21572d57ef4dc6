/** Time source passed in, so tests can move across a month boundary without waiting. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** "YYYY-MM" of the UTC calendar month: the quota period. */
export function utcMonth(at: Date): string {
  return at.toISOString().slice(0, 7);
}
