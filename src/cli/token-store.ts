import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";

/** A token obtained by `aml login`, kept for later `--remote` commands (file mode 0600). */
export interface StoredToken {
  accessToken: string;
  expiresAt: string;
  authUrl: string;
  clientId: string;
  /** The scope `aml login` asked for, asked again on renewal (absent in tokens saved before it was kept). */
  scope?: string;
}

/** XDG rules: an empty or relative XDG_CONFIG_HOME is ignored, so the token never lands in the working directory. */
export function tokenFile(env: Record<string, string | undefined> = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), ".config");
  return join(base, "aml", "token.json");
}

/**
 * Writes the token to a new file beside the old one and renames it over: a symlink at the name is
 * replaced, never followed (the token written wherever it pointed), and a reader never sees half a
 * file. The folder is the appliance CLI's own, so it is made 0700 even when it already existed.
 */
export function saveToken(token: StoredToken, path = tokenFile()): void {
  const folder = dirname(path);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o700);
  const temp = join(folder, `.token.${randomBytes(6).toString("hex")}.tmp`);
  try {
    writeFileSync(temp, JSON.stringify(token, null, 2), { mode: 0o600, flag: "wx" });
    chmodSync(temp, 0o600);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

export function loadToken(path = tokenFile()): StoredToken | null {
  if (!existsSync(path)) return null;
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as StoredToken;
    return typeof parsed.accessToken === "string" ? parsed : null;
  } catch {
    return null;
  }
}
