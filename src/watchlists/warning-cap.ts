/**
 * A list's warnings are kept up to a cap and the rest counted in one last line, so a broken file
 * with a warning per record cannot bloat its version row. warningTotal reads the count back: what
 * was kept and what was only counted.
 */

/** Warnings kept per list by default. */
export const KEPT_WARNINGS = 1000;

const MORE_RE = /^… and (\d+) more warnings$/;

/**
 * The first `max` warnings, then one line counting the rest. Count lines already in the input (a
 * stored version's, capped again) are folded into that one count, so the total survives any number
 * of caps.
 */
export function capWarnings(warnings: readonly string[], max: number): string[] {
  const total = warningTotal(warnings);
  const kept = warnings.filter((w) => !MORE_RE.test(w)).slice(0, max);
  return total > kept.length ? [...kept, `… and ${total - kept.length} more warnings`] : kept;
}

/** How many warnings there were, counting those a cap line stands for. */
export function warningTotal(warnings: readonly string[]): number {
  let total = 0;
  for (const w of warnings) {
    const more = MORE_RE.exec(w);
    total += more ? Number(more[1]) : 1;
  }
  return total;
}
