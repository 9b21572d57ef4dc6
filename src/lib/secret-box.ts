import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { closeSync, existsSync, fchmodSync, linkSync, openSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { syncAndClose, syncDirectory } from "./durable-fs";

/**
 * Encrypts secrets the appliance must be able to use again (webhook signing secrets: HMAC needs the
 * secret itself, so it cannot be hashed). The key lives in the data folder as master.key (0600), so a
 * copy of aml.db alone does not reveal any secret. Back up master.key with the database.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
  /**
   * Names the key without revealing it (an HMAC of a fixed label under the key): the database keeps it
   * so that a master.key from another folder is refused at start, not at the first delivery.
   */
  readonly keyCheck: string;
}

const VERSION = "v1";
const KEY_CHECK_LABEL = "aml master key check v1";
export const MASTER_KEY_FILE = "master.key";

export function createSecretBox(key: Uint8Array): SecretBox {
  if (key.length !== 32) throw new Error("master key must be 32 bytes");
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}`;
    },
    open(sealed) {
      const [version, payload] = sealed.split(":");
      if (version !== VERSION || !payload) throw new Error("unknown sealed-secret format");
      const raw = Buffer.from(payload, "base64");
      const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
    },
    keyCheck: `${VERSION}:${createHmac("sha256", key).update(KEY_CHECK_LABEL).digest("hex")}`,
  };
}

/** The data folder's master key, or null when it has none. */
export function readMasterKey(dataDir: string): Uint8Array | null {
  const path = join(dataDir, MASTER_KEY_FILE);
  if (!existsSync(path)) return null;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    // A restored folder still owned by root: say what to do, not only "EACCES".
    const reason = error instanceof Error ? error.message : String(error);
    const code = (error as NodeJS.ErrnoException).code;
    const todo =
      code === "EACCES" || code === "EPERM"
        ? "run aml as the user that owns the data folder (master.key is that user's, mode 0600)"
        : "restore master.key from the same backup as aml.db";
    throw new Error(`${path} cannot be read (${reason}): ${todo}.`);
  }
  const key = Buffer.from(text.trim(), "base64");
  if (key.length !== 32) {
    // An empty or cut-short file: a hand edit, a bad copy, or a key written before keys were synced to disk.
    throw new Error(
      `${path} is not a valid master key (expected 32 bytes in base64, found ${key.length}): restore master.key from the same backup as aml.db. Only if aml.db holds no webhook signing secrets, removing the file lets aml create a new key.`,
    );
  }
  return key;
}

/**
 * Writes a new master key (mode 0600) and returns the folder's key: the new one, or the one another
 * process published first. Callers decide whether a new key is safe (storage/master-key.ts).
 *
 * The key is written to a temp file of its own, synced, and then linked to master.key. A link never
 * replaces an existing name (EEXIST, as the `wx` flag did) and the name appears with the whole key
 * behind it, so a process starting at the same moment never reads an empty or partial key. The folder
 * is synced before the key is returned: aml.db (which syncs) may seal secrets with it at once, and a
 * key that a power cut leaves empty or missing would lose those secrets for good.
 */
export function createMasterKey(dataDir: string): Uint8Array {
  const path = join(dataDir, MASTER_KEY_FILE);
  const created = randomBytes(32);
  const temp = join(dataDir, `${MASTER_KEY_FILE}.${randomBytes(8).toString("hex")}.tmp`);
  // wx: the temp name is ours alone, so the cleanup below never removes another process's file.
  const fd = openSync(temp, "wx", 0o600);
  let published: boolean;
  try {
    writeSynced(fd, created.toString("base64"));
    published = linkUnlessTaken(temp, path);
  } finally {
    // After a link master.key is a second name of the same file; the temp name is never needed again.
    unlinkSync(temp);
  }
  // Also when another process won: it may not have synced the folder yet, and the key is used from here on.
  syncDirectory(dataDir);
  if (published) return created;
  const key = readMasterKey(dataDir);
  if (key === null) throw new Error(`${path} vanished right after another process created it`);
  return key;
}

/** A temp name of createMasterKey's: `master.key.<16 hex>.tmp`. */
const KEY_TEMP = /^master\.key\.[0-9a-f]{16}\.tmp$/;

/** A temp file younger than this may belong to a process creating the key right now. */
export const KEY_TEMP_STALE_MS = 60_000;

/**
 * Removes key temp files that a process killed inside createMasterKey left behind (between its open
 * and its unlink). Each holds a copy of a key, perhaps the published one, and would otherwise ride
 * along into every backup of the folder. Only files older than a minute go: a younger one may be a
 * starting process's, about to be linked. Returns the names removed.
 */
export function removeStaleKeyTemps(dataDir: string, now = Date.now()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch {
    return removed; // no folder yet: nothing was left in it
  }
  for (const name of names) {
    if (!KEY_TEMP.test(name)) continue;
    const path = join(dataDir, name);
    try {
      if (now - statSync(path).mtimeMs < KEY_TEMP_STALE_MS) continue;
      unlinkSync(path);
      removed.push(name);
    } catch (error) {
      // Another process removed it first.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return removed;
}

/** Writes all of `text`, sets exactly 0600 (whatever the umask made of it), syncs the file and closes it. */
function writeSynced(fd: number, text: string): void {
  try {
    writeFileSync(fd, text);
    fchmodSync(fd, 0o600);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  syncAndClose(fd);
}

/** Gives `from`'s file the name `to`, unless `to` exists: false when another process took it first. */
function linkUnlessTaken(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}
