/** Threshold-free comparison of two matchers: recall and alert rate read off their score curves. */

export function rate(scores: readonly number[], threshold: number): number {
  if (scores.length === 0) return 0;
  let n = 0;
  for (const s of scores) if (s >= threshold) n++;
  return n / scores.length;
}

function descending(scores: readonly number[]): number[] {
  return [...scores].sort((a, b) => b - a);
}

/** The lowest threshold at which at most `per1000` of every 1,000 negatives alert. */
export function thresholdAtAlertRate(negatives: readonly number[], per1000: number): number {
  const sorted = descending(negatives);
  const allowed = Math.floor((per1000 / 1000) * sorted.length);
  if (allowed >= sorted.length) return 0;
  return sorted[allowed]! + 1e-9;
}

/** The highest threshold that still finds `recall` of the positives (Infinity if unreachable). */
export function thresholdAtRecall(positives: readonly number[], recall: number): number {
  const sorted = descending(positives);
  const needed = Math.ceil(recall * sorted.length);
  const t = sorted[needed - 1] ?? 0;
  return t > 0 ? t : Number.POSITIVE_INFINITY;
}

export interface CurvePoints {
  readonly recallAt1: number;
  readonly recallAt10: number;
  readonly alertsAt95: number;
  readonly alertsAt99: number;
}

export function curvePoints(positives: readonly number[], negatives: readonly number[]): CurvePoints {
  const at = (r: number) => {
    const t = thresholdAtRecall(positives, r);
    return Number.isFinite(t) ? rate(negatives, t) * 1000 : Number.POSITIVE_INFINITY;
  };
  return {
    recallAt1: rate(positives, thresholdAtAlertRate(negatives, 1)),
    recallAt10: rate(positives, thresholdAtAlertRate(negatives, 10)),
    alertsAt95: at(0.95),
    alertsAt99: at(0.99),
  };
}
