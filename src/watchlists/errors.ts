import { type ClashingEdition, type EditionClash, ukPublication } from "./editions";

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

/** One source whose import would remove more than the allowed share of its serving entities. */
export interface MassRemoval {
  source: string;
  removed: number;
  previous: number;
  /** The import's format and the serving version's, to show a switch between publications. */
  format?: string;
  previousFormat?: string;
}

/**
 * An import that would remove a large share of a source's serving entities, refused before anything
 * is published. A file cut at a line break, a partial download, or one half of a list imported alone
 * (OFAC's consolidated non-SDN files without the SDN set) parses cleanly and looks exactly like this,
 * and publishing it would screen every removed party as Clear.
 */
export class MassRemovalError extends Error {
  override readonly name = "MassRemovalError";
  constructor(readonly removals: readonly MassRemoval[]) {
    const hints = removals.flatMap((r) => {
      const hint = sourceHint(r);
      return hint ? [` ${hint}`] : [];
    });
    super(
      `Refused: ${removals.map(describeRemoval).join("; ")}. An import may remove at most ${percent(MASS_REMOVAL_SHARE)} of a source's entities (fewer than ${MASS_REMOVAL_FLOOR} always pass), since a truncated or partial file looks like this.${hints.join("")} Nothing was published. If the change is intended (the list really shrank, or you are switching to another publication of the list whose record ids differ), import it again allowing mass removal (aml lists import --allow-mass-removal; over HTTP, allowMassRemoval=true)`,
    );
  }
}

/** Advice that applies to one source's situation only, so no other refusal carries it. */
function sourceHint(r: MassRemoval): string | undefined {
  if (r.source === "OFAC") return "OFAC's SDN and consolidated (non-SDN) files are one source, so import them together.";
  if (r.source === "UK" && ukPublication(r.format) !== ukPublication(r.previousFormat)) {
    return "OFSI's Consolidated List and the FCDO UK Sanctions List identify records differently (OFSI Group ID, FCDO Unique ID), so switching between them replaces every UK record.";
  }
  return undefined;
}

function describeRemoval(r: MassRemoval): string {
  const counts = `${r.source} would lose ${r.removed.toLocaleString("en-US")} of its ${r.previous.toLocaleString("en-US")} serving entities (${percent(r.removed / r.previous)})`;
  const switched = r.format !== undefined && r.previousFormat !== undefined && r.format !== r.previousFormat;
  return switched ? `${counts}: this import is ${r.format}, the serving version ${r.previousFormat}` : counts;
}

/**
 * Files of one import that are editions of the same list (sharing at least half of the smaller one's
 * records) but not provably the same edition: different publication dates, or one undated. Merged,
 * an older edition's records would overwrite a newer one's and parties the newer one delisted would
 * stay listed, so the import is refused before anything is published.
 */
export class EditionConflictError extends Error {
  override readonly name = "EditionConflictError";
  constructor(
    readonly source: string,
    readonly clashes: readonly EditionClash[],
  ) {
    const pairs = clashes.map((c) => `${describeEdition(c.editions[0])} and ${describeEdition(c.editions[1])} share ${c.shared.toLocaleString("en-US")} records`);
    const which = source === "OFAC" ? " (for OFAC: the SDN list and the consolidated non-SDN list, each in one format)" : "";
    super(
      `Refused: the ${source} files hold more than one edition of the same list, with different publication dates (an undated file counts as different): ${pairs.join("; ")}. Merged, an older edition's records would overwrite a newer one's, and parties the newer edition no longer lists would still be screened. Nothing was published. Import one edition of each list${which}: one file, or one CSV set, per list, then run the import again`,
    );
  }
}

function describeEdition(e: ClashingEdition): string {
  const day = e.publicationDay;
  return `${e.files.join(" + ")} (${e.format}, ${day === null ? "undated" : `published ${day}`})`;
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
