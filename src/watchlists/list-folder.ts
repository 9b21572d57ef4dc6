import { readdirSync, type Stats, statSync } from "node:fs";
import { join } from "node:path";

/**
 * The files an import reads from a folder: its regular files (links followed), sorted by path;
 * hidden files and subfolders are skipped. An entry that cannot be read (a broken link) is an error. Its own module so the CLI can check a folder before it loads the parsers.
 */
export function listFolderFiles(folder: string): Array<{ path: string; stat: Stats }> {
  return readdirSync(folder)
    .filter((name) => !name.startsWith("."))
    .map((name) => join(folder, name))
    .map((path) => ({ path, stat: entryStat(path, folder) }))
    .filter(({ stat }) => stat.isFile())
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function entryStat(path: string, folder: string): Stats {
  try {
    return statSync(path);
  } catch (error) {
    // A broken link, or an entry removed meanwhile: named, rather than a bare ENOENT.
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new Error(`cannot read ${path} in folder ${folder} (${code === "ENOENT" ? "a broken link, or removed" : code}): remove it or import the files by name`);
  }
}
