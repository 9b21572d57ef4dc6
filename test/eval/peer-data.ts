import { readFileSync } from "node:fs";
import Papa from "papaparse";
import { NAMEDATA_DIR } from "../../bench/lib/shared-data";

export const NAMEDATA = NAMEDATA_DIR;

export interface PeerRow {
  readonly fullName: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly dob: string;
  readonly nationality: string;
}

export function readPeerCsv(file: string): PeerRow[] {
  const parsed = Papa.parse<Record<string, string>>(readFileSync(`${NAMEDATA}/matching_pairs/${file}`, "utf8"), {
    header: true,
    skipEmptyLines: true,
  });
  return parsed.data.map((r) => ({
    fullName: (r.full_name ?? "").trim(),
    firstName: (r.first_name ?? "").trim(),
    lastName: (r.last_name ?? "").trim(),
    dob: (r.date_of_birth ?? "").trim(),
    nationality: (r.nationality ?? "").trim(),
  }));
}

export interface CrossScriptPair {
  readonly query: string;
  readonly expected: string;
  readonly minScore: number;
  readonly description: string;
}

export function readCrossScriptPairs(): CrossScriptPair[] {
  const text = readFileSync(`${NAMEDATA}/matching_pairs/watchman/cross_script_pairs.csv`, "utf8");
  return text
    .split(/\r?\n/)
    .filter((l) => l.trim() && !l.startsWith("#"))
    .map((l) => {
      const [query, expected, min, ...rest] = l.split(",");
      return { query: query!.trim(), expected: expected!.trim(), minScore: Number(min), description: rest.join(",").trim() };
    });
}

/** The English nickname table, read independently of the engine's generated copy. */
export function readNicknames(): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const line of readFileSync(`${NAMEDATA}/nicknames/names.csv`, "utf8").split(/\r?\n/).slice(1)) {
    const [a, , b] = line.split(",");
    if (!a || !b) continue;
    for (const [x, y] of [[a, b], [b, a]] as const) map.set(x, [...(map.get(x) ?? []), y]);
  }
  return map;
}
