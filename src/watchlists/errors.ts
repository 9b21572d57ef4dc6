import { type ClashingEdition, type EditionClash, ukPublication } from "./editions";
import { publishedAtMs } from "./published-at";

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
 * A source whose files hold no entity at all (a list with empty sections, a FollowTheMoney file of
 * other datasets). Published, it would count as loaded (coverage, /readyz) and answer every screen
 * against it with Clear, so it is refused whatever the operator allows.
 */
export function emptyListError(source: string, files: readonly string[]): ListParseError {
  return new ListParseError({
    file: files.join(" + "),
    location: "whole file",
    reason: `holds no ${source} entries, so nothing was published: an empty ${source} list would count as loaded and answer every screen against it with Clear. Check that the file is the complete list download`,
  });
}

/** How far ahead of this appliance's clock a publication date may be: time zones, and a clock a little slow. */
const FUTURE_PUBLICATION_MARGIN_MS = 2 * 24 * 3600 * 1000;

/**
 * The refusal of a list dated more than two days after the appliance's clock, or null. Published,
 * the date would make every real edition after it look older (refused as such), and its age, counted
 * from a future day, would never reach maxDataAgeDays. Either the file was altered or this machine's
 * clock is wrong. `files`: the files of the list so dated, not of the whole import.
 */
export function futureEditionError(source: string, files: readonly string[], publishedAt: string | null, at: Date): ListParseError | null {
  // An unreadable date (kept as written, never given to Date.parse, which reads "Week 47" as 2047) is no date to compare.
  const ms = publishedAtMs(publishedAt);
  if (ms === null || ms <= at.getTime() + FUTURE_PUBLICATION_MARGIN_MS) return null;
  const day = new Date(ms).toISOString().slice(0, 10);
  return new ListParseError({
    file: files.join(" + "),
    location: "publication date",
    reason: `${source} says it was published ${day}, after this appliance's clock (${at.toISOString().slice(0, 10)}): a future date would make every later edition look older and hide the list's age. Nothing was published. Check the file (an official download is never dated ahead) or this machine's clock`,
  });
}

/** One source whose import would remove more than the allowed share of its serving entities or names. */
export interface MassRemoval {
  source: string;
  removed: number;
  previous: number;
  /**
   * Names the source would have fewer of than it serves (net), and how many it serves. A list whose
   * alias file is cut short (OFAC's alt.csv) keeps its entities and loses many of its names: every
   * party listed under a lost alias would then screen as Clear. (Without any alias file an OFAC CSV
   * set is refused before this: importers/ofac/csv-sets.ts.)
   */
  namesLost: number;
  previousNames: number;
  /** The import's format and the serving version's, to show a switch between publications. */
  format?: string;
  previousFormat?: string;
  /**
   * Lists of the serving version that this import does not hold (OFAC's consolidated non-SDN list
   * beside an import of the SDN files alone): refused even when they are too small a share of the
   * source for the counts above.
   */
  listsLost?: LostList[];
}

/** A list of the serving version (its files, and how many records it held) that an import no longer holds. */
export interface LostList {
  files: string[];
  /** Absent for a version imported before versions kept their lists (it was not counted then). */
  records?: number;
}

/** "cons_prim.csv + cons_alt.csv (443 records)": its files, and its size when it was counted. */
export function describeLostList(list: LostList): string {
  return `${list.files.join(" + ")}${list.records === undefined ? "" : ` (${list.records.toLocaleString("en-US")} records)`}`;
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
      `Refused: ${removals.map(describeRemoval).join("; ")}. An import may remove at most ${percent(MASS_REMOVAL_SHARE)} of a source's entities, and of its names (fewer than ${MASS_REMOVAL_FLOOR} always pass), nor every record of one of the lists it was read from (one of at least ${MASS_REMOVAL_FLOOR}), since a truncated or partial file, an alias file cut short, or a list left out of the import, looks like this.${hints.join("")} Nothing was published. If the change is intended (the list really shrank, or you are switching to another publication of the list whose record ids differ), import it again allowing mass removal (aml lists import --allow-mass-removal; over HTTP, allowMassRemoval=true)`,
    );
  }
}

/** Advice that applies to one source's situation only, so no other refusal carries it. */
function sourceHint(r: MassRemoval): string | undefined {
  if (r.source === "OFAC") {
    return "OFAC's SDN and consolidated (non-SDN) files are one source, and a CSV set keeps its aliases in alt.csv and cons_alt.csv, so import them all together.";
  }
  if (r.source === "UK" && ukPublication(r.format) !== ukPublication(r.previousFormat)) {
    return "OFSI's Consolidated List and the FCDO UK Sanctions List identify records differently (OFSI Group ID, FCDO Unique ID), so switching between them replaces every UK record.";
  }
  return undefined;
}

function describeRemoval(r: MassRemoval): string {
  const lost = (n: number, of: number, what: string) => `${n.toLocaleString("en-US")} of its ${of.toLocaleString("en-US")} serving ${what} (${percent(n / of)})`;
  const names = isMassRemoval(r.namesLost, r.previousNames) ? ` and ${lost(r.namesLost, r.previousNames, "names")}` : "";
  const left = (r.listsLost ?? []).map(describeLostList);
  const lists = left.length === 0 ? "" : `: this import leaves out the list${left.length > 1 ? "s" : ""} it serves from ${left.join(" and ")}`;
  const counts = `${r.source} would lose ${lost(r.removed, r.previous, "entities")}${names}${lists}`;
  const switched = r.format !== undefined && r.previousFormat !== undefined && r.format !== r.previousFormat;
  return switched ? `${counts}: this import is ${r.format}, the serving version ${r.previousFormat}` : counts;
}

/**
 * A file of an OFAC CSV set that the set's other files show to be cut short, or to come from another
 * download than they do: every party or alias it lacks would screen as Clear.
 */
export interface CutShortFile {
  source: string;
  /** The file that looks cut short. */
  file: string;
  /**
   * What shows it: rows of `shownBy` (the alias and address files) naming ent_nums `file` (the main
   * table) does not hold; entries of `shownBy` (the main table) without a row in `file` (the address
   * file, which OFAC gives every entry); or `file` ending without the end-of-file mark (0x1A) that
   * `shownBy`, the other files of its download, end with.
   */
  evidence: "ent_nums_missing" | "entries_without_rows" | "no_end_marker";
  /** What `file` is in its set: the main table (sdn.csv, cons_prim.csv), or its alias, address or comments file. */
  role: "main" | "aliases" | "addresses" | "comments";
  shownBy: string[];
  /** How many rows or entries show it, of how many; absent for no_end_marker. */
  count?: number;
  of?: number;
}

/** "sdn.csv looks cut short, or comes from another download than alt.csv and add.csv: 25,435 of their 36,081 rows (70%) …" */
export function describeCutShortFile(cut: CutShortFile): string {
  const count = (n: number) => n.toLocaleString("en-US");
  const share = `${Math.round(((cut.count ?? 0) / (cut.of ?? 1)) * 100)}%`;
  const others = cut.shownBy.join(" and ");
  switch (cut.evidence) {
    case "ent_nums_missing":
      return `${cut.file} looks cut short, or comes from another download than ${others}: ${count(cut.count ?? 0)} of their ${count(cut.of ?? 0)} rows (${share}) name an ent_num it does not hold, and every party missing from it would screen as Clear`;
    case "entries_without_rows":
      return `${cut.file} looks cut short, or comes from another download than ${others}: ${count(cut.count ?? 0)} of the ${count(cut.of ?? 0)} entries of ${others} (${share}) have no row in it, though OFAC gives every entry one, so their aliases are likely missing as well, and a party listed under a missing alias would screen as Clear`;
    case "no_end_marker":
      return `${cut.file} looks cut short: it ends without the end-of-file mark (0x1A) that ${others} of its download end with, so its last rows may be missing, and every party or alias in them would screen as Clear`;
  }
}

/**
 * An import whose OFAC CSV set shows one of its own files cut short, refused before anything is
 * published, on a first import too: a file cut at a line break parses cleanly, and with no serving
 * version (or one it removes less than the mass-removal share of) nothing else would say that
 * parties or aliases are missing. Allowed like a mass removal, for it is one.
 */
export class CutShortError extends Error {
  override readonly name = "CutShortError";
  constructor(readonly cuts: readonly CutShortFile[]) {
    super(
      `Refused: ${cuts.map(describeCutShortFile).join("; ")}. A whole download shows none of these. Nothing was published. Import the files of one whole download together; if these are the files you mean to publish, import them again allowing mass removal (aml lists import --allow-mass-removal; over HTTP, allowMassRemoval=true)`,
    );
  }
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

/** Whether removing `removed` of `previous` entities (or names) needs the operator's explicit allowance. */
export function isMassRemoval(removed: number, previous: number): boolean {
  return removed >= MASS_REMOVAL_FLOOR && removed > previous * MASS_REMOVAL_SHARE;
}

/** The import's two refusals an operator may override: `aml lists import --allow-…`, HTTP `allow…=true`. */
export interface RegressionAllowances {
  /**
   * Publish even when a source would lose more than MASS_REMOVAL_SHARE of its serving entities or
   * names; without it such an import is refused with MassRemovalError.
   */
  allowMassRemoval?: boolean;
  /**
   * Publish even an edition published a day or more before the serving one (isOlderEdition);
   * without it such an import is refused with OlderEditionError.
   */
  allowOlderEdition?: boolean;
}

/** One source whose import is an older edition of its list than the version serving. */
export interface OlderEdition {
  source: string;
  /** Both in the API's UTC form; null when undated (an edition told older by its record ids). */
  publishedAt: string | null;
  servingPublishedAt: string | null;
  format: string;
  servingFormat: string;
  /**
   * Set when the record ids told it (OFAC, whatever the dates): how many of the serving version's
   * highest-numbered records (newestRecordsChecked of them) the import does not hold, and the
   * highest id it holds.
   */
  newestRecordsMissing?: number;
  newestRecordsChecked?: number;
  highestIdHeld?: number | null;
}

/**
 * How many of the serving version's highest-numbered OFAC records are looked for in an import, and
 * how many of them it must lack to be refused as an older edition.
 */
export const NEWEST_RECORDS_CHECKED = 64;
export const NEWEST_RECORDS_FLOOR = 10;

/**
 * An import of a list edition published before the one serving, refused before anything is
 * published: the parties designated in between would screen as Clear, and an older file carried in
 * by mistake looks exactly like this. Few enough parties change between two editions that the
 * mass-removal rule would let it through (the UN list of March 2023 over February 2026's: 68 removed).
 */
export class OlderEditionError extends Error {
  override readonly name = "OlderEditionError";
  constructor(readonly editions: readonly OlderEdition[]) {
    const each = editions.map((e) =>
      e.newestRecordsMissing === undefined
        ? `this ${e.source} list (${e.format}) was published ${e.publishedAt}, before the serving version (${e.servingFormat}, published ${e.servingPublishedAt})`
        : `this ${e.source} import (${e.format}) lacks ${e.newestRecordsMissing} of the ${e.newestRecordsChecked} highest-numbered records of the serving version (${e.servingFormat})${e.highestIdHeld === null || e.highestIdHeld === undefined ? "" : `; the highest id it holds is ${e.highestIdHeld}`}; ${e.source} numbers the parties it lists in the order it lists them, so this is an older edition`,
    );
    super(
      `Refused: ${each.join("; ")}. Parties designated since would screen as Clear. Nothing was published. If you mean to go back to an older edition, import it again allowing it (aml lists import --allow-older-edition; over HTTP, allowOlderEdition=true)`,
    );
  }
}

/**
 * How much earlier than the serving version an import's publication must be to count as an older
 * edition. A whole day: a publisher's date without a time means its first instant, UTC, while the
 * EU stamps the XML of the same run with a local time and offset, which may fall up to 14 hours
 * before that instant (2025-08-02T01:30+02:00 is 2025-08-01T23:30Z), and one day's two formats
 * must not be refused. Two dates a day or more apart are refused; two time stamps less than 24 hours
 * apart pass, even on different days.
 */
export const OLDER_EDITION_MS = 24 * 60 * 60 * 1000;

/**
 * Whether an import published at `publishedAt` is an older edition than one published at
 * `servingPublishedAt` (both in publishedAtUtc's form). An undated side, or text that is no date,
 * cannot be compared and passes.
 */
export function isOlderEdition(publishedAt: string | null, servingPublishedAt: string | null): boolean {
  const at = publishedAtMs(publishedAt);
  const serving = publishedAtMs(servingPublishedAt);
  if (at === null || serving === null) return false;
  return serving - at >= OLDER_EDITION_MS;
}

const percent = (share: number): string => `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;
