import { resolve } from "node:path";
import { createMasterKey, createSecretBox, MASTER_KEY_FILE, readMasterKey, removeStaleKeyTemps, type SecretBox } from "@/lib/secret-box";
import type { Db } from "./db";

/** master.key cannot serve this aml.db: it is missing while sealed secrets need it, or it is another folder's key. */
export class MasterKeyError extends Error {
  override name = "MasterKeyError";
}

const KEY_CHECK = "master_key_check";
const RESTORE = "restore master.key from the same backup as aml.db";

/**
 * Opens the data folder's secret box and pairs its key with the database. A key is created only while
 * no sealed secret exists: a new key cannot open the old secrets, and the failure would surface only
 * at the next webhook delivery. The key check in app_meta catches a master.key from another folder.
 * Costs one small query per start (two when the key file is missing), and a listing of the folder to
 * remove key temp files a killed process left.
 */
export function openMasterKey(db: Db, dataDir: string): SecretBox {
  removeStaleKeyTemps(dataDir);
  const migrated = hasTable(db, "tenants");
  let key = readMasterKey(dataDir);
  let created = false;
  if (key === null) {
    const sealed = migrated ? sealedSecrets(db) : 0;
    if (sealed > 0) {
      throw new MasterKeyError(
        `${resolve(dataDir, MASTER_KEY_FILE)} is missing, and ${resolve(db.path)} holds ${sealed} webhook signing secret(s) sealed with it: ${RESTORE}. No new key was created (it could not open them).`,
      );
    }
    key = createMasterKey(dataDir);
    created = true;
  }
  const box = createSecretBox(key);
  // A database not migrated yet (the server migrates after it listens) is paired by bindKeyCheck later.
  if (migrated) bindKeyCheck(db, box, dataDir, { replace: created });
  return box;
}

/**
 * Records the key check on first use and refuses a key that does not match it. `replace` is for a key
 * just created for a database without sealed secrets, where the old key has nothing left to open.
 */
export function bindKeyCheck(db: Db, box: SecretBox, dataDir: string, options: { replace?: boolean } = {}): void {
  const read = db.sqlite.query<{ value: string }, [string]>("SELECT value FROM app_meta WHERE key = ?");
  const stored = read.get(KEY_CHECK)?.value;
  if (stored === box.keyCheck) return;
  if (stored === undefined || options.replace === true) {
    // DO NOTHING on a first pairing: two processes starting at once keep the first writer's value, and
    // the loser compares against it below (both read the same master.key, so it matches).
    const conflict = options.replace === true ? "DO UPDATE SET value = excluded.value" : "DO NOTHING";
    db.sqlite.run(`INSERT INTO app_meta (key, value) VALUES (?, ?) ON CONFLICT (key) ${conflict}`, [KEY_CHECK, box.keyCheck]);
    if (read.get(KEY_CHECK)?.value === box.keyCheck) return;
  }
  throw new MasterKeyError(
    `${resolve(dataDir, MASTER_KEY_FILE)} is not the master key of ${resolve(db.path)} (the key check in its app_meta does not match): it comes from another data folder or backup; ${RESTORE}.`,
  );
}

function hasTable(db: Db, name: string): boolean {
  return db.sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?").get(name)?.n === 1;
}

function sealedSecrets(db: Db): number {
  return db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM tenants WHERE webhook_secret_enc IS NOT NULL").get()?.n ?? 0;
}
