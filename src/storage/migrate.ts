import type { Database } from "bun:sqlite";
import { sha256Hex } from "@/lib/hash";
import { EMBEDDED_MIGRATIONS } from "./migrations";

export class MigrationError extends Error {
  override name = "MigrationError";
}

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
}

const changedAfterApplied = (name: string) => new MigrationError(`Migration ${name} was changed after it was applied; refusing to start.`);

/**
 * Applies the embedded migrations that the database has not seen, each in its own IMMEDIATE
 * transaction, so two processes starting at once cannot both apply one. A migration whose text
 * changed after it was applied, or a database migrated by a newer binary, stops start-up.
 *
 * A database with every migration applied is only read: a restart, `aml lists status` or `aml
 * audit verify` takes no write lock here, so they work while another process holds it (an import
 * stopped mid-transaction, a sqlite3 shell), where a BEGIN IMMEDIATE per migration waited out
 * the busy timeout and failed with "database is locked".
 */
export function migrate(sqlite: Database, migrations = EMBEDDED_MIGRATIONS): MigrationResult {
  const hasTable = sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== null;
  if (!hasTable) {
    sqlite.run("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, sha256 TEXT NOT NULL, applied_at TEXT NOT NULL)");
  }
  const applied: string[] = [];
  let alreadyApplied = 0;
  const known = new Set(migrations.map((m) => m.name));
  const seen = new Map<string, string>();

  for (const row of sqlite.query<{ name: string; sha256: string }, []>("SELECT name, sha256 FROM schema_migrations").all()) {
    if (!known.has(row.name)) {
      throw new MigrationError(
        `The data folder was migrated by a newer aml (it has migration ${row.name}, unknown to this binary). Upgrade the binary.`,
      );
    }
    seen.set(row.name, row.sha256);
  }

  for (const migration of migrations) {
    const digest = sha256Hex(migration.sql);
    const seenDigest = seen.get(migration.name);
    if (seenDigest !== undefined) {
      if (seenDigest !== digest) throw changedAfterApplied(migration.name);
      alreadyApplied++;
      continue;
    }
    // Not applied when read above: applied here, unless another process starting at once got there
    // first, which the transaction's own read finds.
    const apply = sqlite.transaction(() => {
      const existing = sqlite
        .query<{ sha256: string }, [string]>("SELECT sha256 FROM schema_migrations WHERE name = ?")
        .get(migration.name);
      if (existing) {
        if (existing.sha256 !== digest) {
          throw changedAfterApplied(migration.name);
        }
        return false;
      }
      sqlite.run(migration.sql);
      sqlite.run("INSERT INTO schema_migrations (name, sha256, applied_at) VALUES (?, ?, ?)", [
        migration.name,
        digest,
        new Date().toISOString(),
      ]);
      return true;
    });
    if (apply.immediate()) applied.push(migration.name);
    else alreadyApplied++;
  }
  return { applied, alreadyApplied };
}
