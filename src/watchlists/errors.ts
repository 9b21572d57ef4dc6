/**
 * A list file that cannot be imported as a whole. Thrown instead of returning a partial
 * list, so a truncated or malformed download never silently replaces a good list version.
 */
export class ListParseError extends Error {
  override readonly name = "ListParseError";
  /** File name as supplied by the caller. */
  readonly file: string;
  /** Where the problem is: "line 12", "row 5, column Group ID", "element /sdnList/sdnEntry[3]". */
  readonly location: string;
  readonly reason: string;

  constructor(args: { file: string; location: string; reason: string; cause?: unknown }) {
    super(`${args.file}: ${args.location}: ${args.reason}`, args.cause === undefined ? undefined : { cause: args.cause });
    this.file = args.file;
    this.location = args.location;
    this.reason = args.reason;
  }
}

/**
 * An import that would remove a large share of a source's serving entities, refused before anything
 * is published. A file cut at a line break, a partial download, or one half of a list imported alone
 * (OFAC's consolidated non-SDN files without the SDN set) parses cleanly and looks exactly like this,
 * and publishing it would screen every removed party as Clear.
 */
export class MassRemovalError extends Error {
  override readonly name = "MassRemovalError";
  constructor(readonly removals: ReadonlyArray<{ source: string; removed: number; previous: number }>) {
    const parts = removals.map(
      (r) => `${r.source} would lose ${r.removed.toLocaleString("en-US")} of its ${r.previous.toLocaleString("en-US")} serving entities (${percent(r.removed / r.previous)})`,
    );
    super(
      `Refused: ${parts.join("; ")}. An import may remove at most ${percent(MASS_REMOVAL_SHARE)} of a source's entities (fewer than ${MASS_REMOVAL_FLOOR} always pass), since a truncated or partial file looks like this; OFAC's SDN and consolidated (non-SDN) files are one source, so import them together. Nothing was published. If the list really shrank, import it again allowing mass removal (aml lists import --allow-mass-removal; over HTTP, allowMassRemoval=true)`,
    );
  }
}

/** The share of a source's serving entities one import may remove without being allowed to. */
export const MASS_REMOVAL_SHARE = 0.1;
/** Fewer removals than this always pass, so a small list can lose a few entries. */
export const MASS_REMOVAL_FLOOR = 50;

/** Whether removing `removed` of `previous` entities needs the operator's explicit allowance. */
export function isMassRemoval(removed: number, previous: number): boolean {
  return removed >= MASS_REMOVAL_FLOOR && removed > previous * MASS_REMOVAL_SHARE;
}

const percent = (share: number): string => `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;
