import { readdirSync, type Stats, statSync } from "node:fs";
import { join } from "node:path";

/**
 * The files an import reads from a folder: its regular files, sorted by path; hidden files and
 * subfolders are skipped. Its own module so the CLI can check a folder before it loads the parsers.
 */
export function listFolderFiles(folder: string): Array<{ path: string; stat: Stats }> {
  return readdirSync(folder)
    .filter((name) => !name.startsWith("."))
    .map((name) => join(folder, name))
    .map((path) => ({ path, stat: statSync(path) }))
    .filter(({ stat }) => stat.isFile())
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
