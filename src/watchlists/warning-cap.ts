/**
 * A list's warnings are kept up to a cap and the rest counted in one last line, so a broken file
 * with a warning per record cannot bloat its version row. warningTotal reads the count back: what
 * was kept and what was only counted.
 */

/** Warnings kept per list by default. */
export const KEPT_WARNINGS = 1000;

const MORE_RE = /^… and (\d+) more warnings$/;

/** The first `max` warnings, then one line counting the rest. */
export function capWarnings(warnings: readonly string[], max: number): string[] {
  if (warnings.length <= max) return [...warnings];
  return [...warnings.slice(0, max), `… and ${warnings.length - max} more warnings`];
}

/** How many warnings there were, counting those a cap line stands for (a merged list may hold several). */
export function warningTotal(warnings: readonly string[]): number {
  let total = 0;
  for (const w of warnings) {
    const more = MORE_RE.exec(w);
    total += more ? Number(more[1]) : 1;
  }
  return total;
}
