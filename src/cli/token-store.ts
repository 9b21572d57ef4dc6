import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";

/** A token obtained by `aml login`, kept for later `--remote` commands (file mode 0600). */
export interface StoredToken {
  accessToken: string;
  expiresAt: string;
  authUrl: string;
  clientId: string;
}

/** XDG rules: an empty or relative XDG_CONFIG_HOME is ignored, so the token never lands in the working directory. */
export function tokenFile(env: Record<string, string | undefined> = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), ".config");
  return join(base, "aml", "token.json");
}

export function saveToken(token: StoredToken, path = tokenFile()): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, JSON.stringify(token, null, 2), { mode: 0o600 });
  chmodSync(path, 0o600);
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
