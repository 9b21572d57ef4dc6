import { copyFileSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { MASTER_KEY_FILE } from "@/lib/secret-box";
import { DB_FILE, type Db } from "./db";

export interface BackupResult {
  folder: string;
  database: string;
  masterKey: string | null;
  bytes: number;
}

/**
 * Online backup while the server runs: VACUUM INTO writes a consistent, compacted copy of the
 * database from one read snapshot without blocking writers. master.key is copied beside it:
 * without it the sealed webhook secrets in the copy cannot be used.
 */
export function backupDataFolder(db: Db, dataDir: string, destination: string): BackupResult {
  const folder = resolve(destination);
  if (existsSync(folder) && readdirSync(folder).length > 0) {
    throw new Error(`Backup folder ${folder} is not empty; choose a new folder`);
  }
  mkdirSync(folder, { recursive: true });
  const database = join(folder, DB_FILE);
  db.sqlite.run("VACUUM INTO ?", [database]);
  let masterKey: string | null = null;
  const keyFile = join(dataDir, MASTER_KEY_FILE);
  if (existsSync(keyFile)) {
    masterKey = join(folder, MASTER_KEY_FILE);
    copyFileSync(keyFile, masterKey);
  }
  return { folder, database, masterKey, bytes: Bun.file(database).size };
}
