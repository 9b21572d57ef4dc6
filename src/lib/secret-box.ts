import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

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
  const key = Buffer.from(readFileSync(path, "utf8").trim(), "base64");
  if (key.length !== 32) throw new Error(`${path} is not a valid master key (expected 32 base64 bytes)`);
  return key;
}

/**
 * Writes a new master key (mode 0600) and returns the folder's key: the new one, or the one another
 * process wrote first. Callers decide whether a new key is safe (storage/master-key.ts).
 */
export function createMasterKey(dataDir: string): Uint8Array {
  const path = join(dataDir, MASTER_KEY_FILE);
  // wx: never overwrite a key another process created in the meantime.
  try {
    writeFileSync(path, randomBytes(32).toString("base64"), { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  chmodSync(path, 0o600);
  const key = readMasterKey(dataDir);
  if (key === null) throw new Error(`${path} vanished right after it was written`);
  return key;
}
