import type { CutShortFile } from "../../errors";
import { hasDosEofMarker } from "../common/csv";
import type { TextFile } from "../common/files";
import type { OfacCsvSet } from "./parse";

/**
 * The share of a file's rows (or of the main table's entries) past which the set's other files say
 * it is cut short, or from another download: at least CUT_FLOOR of them. Measured on the real
 * files: a whole download has none; the 2024-05-03 sdn.csv with the 2023 add.csv and alt.csv has
 * 129 of 18,990 address rows (0.7%) and 44 of 17,091 alias rows (0.3%) naming ent_nums it lacks,
 * while 1,256 of its 14,965 entries (8.4%) have no address row; sdn.csv cut to 3,000 lines leaves
 * 70% of the alias and address rows without their entry, and cut to 95% about 5% (review: pooled
 * over both files, a cut of sdn.csv and add.csv together stayed under 2%).
 */
export const CUT_SHARE = 0.02;
export const CUT_FLOOR = 100;

/** What the parser counted: per alias and address file, its rows and those naming an ent_num the main table lacks. */
export interface SetCounts {
  companions: ReadonlyMap<TextFile, { rows: number; orphans: number }>;
  /** The main table's entries, and those without a row in the address file (0 without one). */
  entries: number;
  unaddressed: number;
}

function isCut(count: number, of: number): boolean {
  return count >= CUT_FLOOR && count > of * CUT_SHARE;
}

/**
 * The files of an OFAC CSV set that its other files show to be cut short, or from another download
 * (CutShortFile): by their rows when they say so, otherwise by the end-of-file mark. OFAC ends every
 * file of a download with 0x1A; a file cut at a line break has none, and a file cut mid-row is
 * refused by the parser already. A set whose files all lack it (re-saved by a tool that drops it)
 * is judged by its rows alone.
 */
export function cutShortFiles(set: OfacCsvSet, counts: SetCounts): CutShortFile[] {
  const cuts: CutShortFile[] = [];
  const showing = [...counts.companions].filter(([, c]) => isCut(c.orphans, c.rows));
  if (showing.length > 0) {
    cuts.push({
      source: "OFAC",
      file: set.main.name,
      evidence: "ent_nums_missing",
      role: "main",
      shownBy: showing.map(([file]) => file.name),
      count: showing.reduce((n, [, c]) => n + c.orphans, 0),
      of: showing.reduce((n, [, c]) => n + c.rows, 0),
    });
  }
  if (set.add && isCut(counts.unaddressed, counts.entries)) {
    cuts.push({
      source: "OFAC",
      file: set.add.name,
      evidence: "entries_without_rows",
      role: "addresses",
      shownBy: [set.main.name],
      count: counts.unaddressed,
      of: counts.entries,
    });
  }
  const files = (
    [
      [set.main, "main"],
      [set.alt, "aliases"],
      [set.add, "addresses"],
      [set.comments, "comments"],
    ] as const
  ).filter((entry): entry is readonly [TextFile, CutShortFile["role"]] => entry[0] !== undefined);
  const marked = files.filter(([f]) => hasDosEofMarker(f.text)).map(([f]) => f);
  if (marked.length === 0) return cuts;
  for (const [file, role] of files) {
    if (marked.includes(file) || cuts.some((c) => c.file === file.name)) continue;
    cuts.push({ source: "OFAC", file: file.name, evidence: "no_end_marker", role, shownBy: marked.map((f) => f.name) });
  }
  return cuts;
}
