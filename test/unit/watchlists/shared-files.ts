import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ParsedList } from "@/watchlists/entity";
import { WATCHLISTS_DIR } from "../../../bench/lib/shared-data";
import { ListParseError } from "@/watchlists/errors";
import { type ListFile, parseListFiles } from "@/watchlists/parse-files";

/**
 * The first test touching a real list parses it (up to ~2 s of CPU for ConList.xlsx) and test
 * machines are shared, so the default 5 s per test is too tight for that one-off cost.
 */
export const REAL_FILE_TIMEOUT = 30_000;

/** The real list files, read in place (never copied into the repository): ../shared beside it. */
export const SHARED = WATCHLISTS_DIR;
export const FIXTURES = resolve(import.meta.dir, "../../fixtures/watchlists");

export function sharedPath(rel: string): string {
  return join(SHARED, rel);
}

export function listFile(rel: string, name = rel.split("/").pop() ?? rel, root = SHARED): ListFile {
  return { name, bytes: new Uint8Array(readFileSync(join(root, rel))) };
}

export function sharedText(rel: string): string {
  return readFileSync(join(SHARED, rel), "latin1");
}

export function sharedUtf8(rel: string): string {
  return readFileSync(join(SHARED, rel), "utf8");
}

export function dirFiles(rel: string): ListFile[] {
  const dir = join(SHARED, rel);
  return readdirSync(dir)
    .filter((n) => statSync(join(dir, n)).isFile())
    .sort()
    .map((n) => ({ name: n, bytes: new Uint8Array(readFileSync(join(dir, n))) }));
}

const cache = new Map<string, Promise<ParsedList[]>>();

/** Parses once per test process; several test files share the heavy real files. */
export function parsedOnce(key: string, files: () => ListFile[]): Promise<ParsedList[]> {
  let hit = cache.get(key);
  if (!hit) {
    hit = parseListFiles(files());
    cache.set(key, hit);
  }
  return hit;
}

export async function onlyList(key: string, files: () => ListFile[]): Promise<ParsedList> {
  const lists = await parsedOnce(key, files);
  if (lists.length !== 1 || !lists[0]) throw new Error(`expected one list for ${key}, got ${lists.length}`);
  return lists[0];
}

export function entityById(list: ParsedList, id: string) {
  const found = list.entities.find((e) => e.externalId === id);
  if (!found) throw new Error(`no entity ${id} in ${list.format}`);
  return found;
}

/** Runs the parser and returns the ListParseError it must throw. */
export async function parseError(files: ListFile[]): Promise<ListParseError> {
  try {
    await parseListFiles(files);
  } catch (err) {
    if (err instanceof ListParseError) return err;
    throw err;
  }
  throw new Error("expected a ListParseError, but parsing succeeded");
}

/** The first half of a file, as a download cut short would leave it. */
export function firstHalf(file: ListFile): ListFile {
  return { name: file.name, bytes: file.bytes.slice(0, Math.floor(file.bytes.length / 2)) };
}
