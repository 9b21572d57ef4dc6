import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ParsedList, SourceList, WatchlistEntity } from "../../src/watchlists/entity";
import { parseListFiles } from "../../src/watchlists/parse-files";
import { WATCHLISTS_DIR } from "./shared-data";

export const WATCHLIST_ROOT = WATCHLISTS_DIR;

/**
 * Files given to the importers: one current file set per source; no snapshots (older versions of
 * the same lists) and no EU file (the only one we have is a fictional format sample).
 */
const FILES: Record<string, (name: string) => boolean> = {
  ofac: (n) => /^(sdn|add|alt|sdn_comments|cons_prim|cons_add|cons_alt|cons_comments)\.csv$/.test(n),
  un: (n) => n === "consolidated.xml",
  uk: (n) => n === "ConList.xlsx",
  wikidata: () => true,
};

function listFiles(dir: string, accept: (name: string) => boolean): { name: string; bytes: Uint8Array }[] {
  const out: { name: string; bytes: Uint8Array }[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name !== "snapshots") out.push(...listFiles(full, accept));
    } else if (accept(name)) out.push({ name, bytes: readFileSync(full) });
  }
  return out;
}

/** The real list files, one set per source (OFAC, UN, UK, Wikidata), as the importers take them. */
export function realListFileSets(root = WATCHLIST_ROOT): { name: string; bytes: Uint8Array }[][] {
  return Object.entries(FILES)
    .map(([dir, accept]) => listFiles(join(root, dir), accept))
    .filter((files) => files.length > 0);
}

export interface LoadedLists {
  readonly lists: ParsedList[];
  readonly entities: WatchlistEntity[];
  readonly publishedAt: Partial<Record<SourceList, string | null>>;
}

/** Parses the real list files in place (never copied) with the project's importers. */
export async function loadRealLists(root = WATCHLIST_ROOT): Promise<LoadedLists> {
  const lists: ParsedList[] = [];
  for (const files of realListFileSets(root)) lists.push(...(await parseListFiles(files)));
  const publishedAt: Partial<Record<SourceList, string | null>> = {};
  for (const l of lists) publishedAt[l.source] = l.publishedAt;
  return { lists, entities: lists.flatMap((l) => l.entities), publishedAt };
}
