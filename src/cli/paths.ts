import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { invalidInput } from "@/errors";
import { PARTIAL_BACKUP_FILE, unusableBackupFolder } from "@/storage/backup";
import { DB_FILE, unfinishedBackupError } from "@/storage/db";
import { listFolderFiles } from "@/watchlists/list-folder";

// Checks on the paths a command is given, made before anything is opened, so a typo creates nothing.

/** Refuses (exit 2) a data folder without aml.db, before anything is opened or created in it. */
export function requireApplianceData(dataDir: string): void {
  const folder = resolve(dataDir);
  if (existsSync(join(folder, DB_FILE))) return;
  if (existsSync(join(folder, PARTIAL_BACKUP_FILE))) throw unfinishedBackupError(folder);
  throw invalidInput(
    `no appliance data in ${folder} (no ${DB_FILE}): check --data-dir, AML_DATA_DIR or the config file's dataDir; a new folder is created by aml serve, aml migrate, aml lists import or aml tenant create`,
  );
}

/** Refuses (exit 2) input files that do not exist, before a data folder is opened or created for them. "-" is stdin. */
export function requireInputFiles(paths: readonly string[]): void {
  for (const path of paths) if (path !== "-" && !existsSync(path)) throw invalidInput(`no such file: ${path}`);
}

/**
 * Refuses (exit 2) list paths that are not files or folders (a typo, "-", a device) and folders with
 * no file an import would read, before a data folder is opened or created for them.
 */
export function requireListPaths(paths: readonly string[]): void {
  for (const path of paths) {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) throw invalidInput(`no such file or folder: ${path}${path === "-" ? " (lists import reads files and folders, not standard input)" : ""}`);
    if (!stat.isFile() && !stat.isDirectory()) throw invalidInput(`not a file or folder: ${path} (lists import reads files and folders, not standard input or devices)`);
    if (stat.isDirectory()) {
      let files: number;
      try {
        files = listFolderFiles(path).length;
      } catch (error) {
        throw invalidInput(error instanceof Error ? error.message : String(error));
      }
      if (files === 0) throw invalidInput(`no files in folder ${path}: an import reads the folder's files (hidden files and subfolders are skipped)`);
    }
  }
}

/**
 * Refuses (exit 2) a backup destination that exists and is not an empty folder, before the data
 * folder is opened: a backup never mixes with or overwrites another one.
 */
export function requireNewFolder(path: string): void {
  // "" resolves to the working folder: a script whose destination variable is unset.
  if (path.trim() === "") throw invalidInput("the backup folder is empty; give a new folder for the backup");
  const unusable = unusableBackupFolder(resolve(path));
  if (unusable !== null) throw invalidInput(unusable);
}
