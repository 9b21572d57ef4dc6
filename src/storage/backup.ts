import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { syncDirectory, syncFile } from "@/lib/durable-fs";
import { MASTER_KEY_FILE } from "@/lib/secret-box";
import { DB_FILE, type Db, PARTIAL_BACKUP_FILE } from "./db";

export { PARTIAL_BACKUP_FILE };

export interface BackupResult {
  folder: string;
  database: string;
  masterKey: string | null;
  bytes: number;
}

/**
 * Why `folder` cannot take a backup, or null when it can: it must be new or an empty folder, so a
 * backup never mixes with or overwrites another one.
 */
export function unusableBackupFolder(folder: string): string | null {
  // lstat: a link to nowhere does not exist for existsSync, and mkdir would then fail on it.
  const link = lstatSync(folder, { throwIfNoEntry: false });
  if (link === undefined) return null;
  if (link.isSymbolicLink() && !existsSync(folder)) return `${folder} is a symbolic link to nothing; give a new folder for the backup`;
  if (!statSync(folder).isDirectory()) return `${folder} is a file, not a folder; give a new folder for the backup`;
  return readdirSync(folder).length > 0 ? `Backup folder ${folder} is not empty; choose a new folder` : null;
}

/**
 * Online backup while the server runs: VACUUM INTO writes a consistent, compacted copy of the
 * database from one read snapshot without blocking writers. master.key is copied beside it:
 * without it the sealed webhook secrets in the copy cannot be used.
 *
 * The copy holds subject names and the key that opens the webhook secrets: a new folder is made
 * 0700 and both files 0600, whatever the umask.
 *
 * The database is written as aml.db.partial and renamed to aml.db last, once it and the key are on
 * disk: a backup killed part-way (cron, an OOM kill, a reboot) leaves no aml.db. Written under its
 * own name, a cut-short copy rolled back by its leftover journal opened as an empty appliance, which
 * `aml audit verify --all` reported intact (0 entries), the check the restore procedure relies on.
 */
export function backupDataFolder(db: Db, dataDir: string, destination: string): BackupResult {
  const folder = resolve(destination);
  // The CLI checks this before it opens the data folder (a usage error); here it guards the moment between.
  const unusable = unusableBackupFolder(folder);
  if (unusable !== null) throw new Error(unusable);
  if (!existsSync(folder)) {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    chmodSync(folder, 0o700);
  }
  const database = join(folder, DB_FILE);
  const partial = join(folder, PARTIAL_BACKUP_FILE);
  // Created empty with its mode first: VACUUM INTO fills an existing empty file and keeps its mode,
  // so the copy is never readable by others, not even for a moment.
  writeFileSync(partial, "", { mode: 0o600, flag: "wx" });
  chmodSync(partial, 0o600);
  db.sqlite.run("VACUUM INTO ?", [partial]);
  let masterKey: string | null = null;
  const keyFile = join(dataDir, MASTER_KEY_FILE);
  if (existsSync(keyFile)) {
    masterKey = join(folder, MASTER_KEY_FILE);
    copyFileSync(keyFile, masterKey);
    chmodSync(masterKey, 0o600);
    syncFile(masterKey);
  }
  // Synced before the rename, and the rename before "backup written" is printed: an operator who
  // then carries the folder away or deletes older backups must not find an empty key or a cut-short
  // database after a power cut.
  syncFile(partial);
  syncDirectory(folder);
  renameSync(partial, database);
  syncDirectory(folder);
  return { folder, database, masterKey, bytes: Bun.file(database).size };
}
