import { ListParseError } from "../../errors";
import type { TextFile } from "../common/files";
import type { OfacCsvSet } from "./parse";

export type OfacCsvRole = "main" | "add" | "alt" | "comments";

export interface OfacCsvFile extends TextFile {
  role: OfacCsvRole;
}

function entNums(text: string): Set<string> {
  const ids = new Set<string>();
  for (const m of text.matchAll(/^(\d+),/gm)) ids.add(m[1] ?? "");
  return ids;
}

function overlap(a: Set<string>, b: Set<string>): number {
  let n = 0;
  for (const id of a) if (b.has(id)) n++;
  return n;
}

/**
 * Groups OFAC legacy CSV files into sets by content: each companion (addresses, aliases,
 * comments) joins the main table whose ent_nums it shares most, so file names never matter.
 * Two main tables of the same list (e.g. two sdn.csv downloads) are refused, since merging
 * two versions would resurrect delisted entries.
 */
export function assembleOfacCsvSets(files: readonly OfacCsvFile[]): OfacCsvSet[] {
  const mains = files.filter((f) => f.role === "main").map((f) => ({ file: f, ids: entNums(f.text), set: { main: { name: f.name, text: f.text } } as OfacCsvSet }));
  for (const [i, a] of mains.entries()) {
    for (const b of mains.slice(i + 1)) {
      if (overlap(a.ids, b.ids) > Math.min(a.ids.size, b.ids.size) / 2) {
        throw new ListParseError({
          file: b.file.name,
          location: "whole file",
          reason: `holds mostly the same ent_nums as ${a.file.name}: two versions of one OFAC list cannot be imported together`,
        });
      }
    }
  }
  // The companions that match their main table best are paired first, whatever the order the files
  // came in: one whose own main table was cut short then finds the other list's taken, and is named.
  const companions = files
    .filter((f) => f.role !== "main")
    .map((companion) => {
      const ids = entNums(companion.text);
      const best = mains.map((m) => ({ m, shared: overlap(ids, m.ids) })).sort((x, y) => y.shared - x.shared)[0];
      return { companion, ids, best, share: ids.size === 0 ? 1 : (best?.shared ?? 0) / ids.size };
    })
    .sort((x, y) => y.share - x.share);
  for (const { companion, ids, best, share } of companions) {
    if (!best || (best.shared === 0 && ids.size > 0)) {
      throw new ListParseError({
        file: companion.name,
        location: "whole file",
        reason: `OFAC ${companion.role} file without its main table (sdn.csv or cons_prim.csv) in the same import`,
      });
    }
    const role = companion.role as Exclude<OfacCsvRole, "main">;
    if (best.m.set[role]) {
      // Paired by shared ent_nums, a companion whose own main table was cut short can share more with
      // another list's: then it is not a second file of that list, and saying so would send the
      // operator to the wrong file.
      throw new ListParseError({
        file: companion.name,
        location: "whole file",
        reason:
          share < 0.5
            ? `OFAC ${role} file whose main table is missing or cut short: only ${best.shared.toLocaleString("en-US")} of its ${ids.size.toLocaleString("en-US")} ent_nums appear in a main table of the import (at most in ${best.m.file.name}, which has its own ${role} file, ${best.m.set[role]?.name})`
            : `second OFAC ${role} file for ${best.m.file.name} (the first is ${best.m.set[role]?.name})`,
      });
    }
    best.m.set[role] = { name: companion.name, text: companion.text };
  }
  return mains.map((m) => m.set);
}

/**
 * Refuses a set without its alias file. OFAC keeps every alias in alt.csv (cons_alt.csv), about half
 * of the list's names: without it every party listed under an alias would screen as Clear. A first
 * import has no serving version for the mass-removal guard to compare with, so the set itself must be
 * whole. Checked after the set parsed, so that a file cut short is reported as such first.
 */
export function requireAliasFile(set: OfacCsvSet): void {
  if (set.alt) return;
  const named: Record<string, string> = { "sdn.csv": "alt.csv", "cons_prim.csv": "cons_alt.csv" };
  const aliasFile = named[set.main.name.toLowerCase()] ?? "alt.csv for sdn.csv, cons_alt.csv for cons_prim.csv";
  throw new ListParseError({
    file: set.main.name,
    location: "whole file",
    reason: `OFAC main table without its alias file (${aliasFile}) in the same import: every party listed under an alias would screen as Clear. Import the whole CSV set of one download: the main table with its alt, add and comments files`,
  });
}
