import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { DB_FILE, openDb } from "@/storage/db";
import { MigrationError, migrate } from "@/storage/migrate";
import { EMBEDDED_MIGRATIONS } from "@/storage/migrations";
import { tempDataDir } from "../../helpers/server";

/** The embedded migrator: complete, ordered, idempotent, and strict about history it does not recognise. */
const MIGRATIONS_DIR = join(import.meta.dir, "..", "..", "..", "migrations");
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function memory(): Database {
  return new Database(":memory:", { strict: true });
}

describe("embedded migrations", () => {
  test("every .sql file in migrations/ is embedded, byte for byte, in file order", () => {
    const files = readdirSync(MIGRATIONS_DIR)
      .filter((f) => f.endsWith(".sql"))
      .sort();
    expect(EMBEDDED_MIGRATIONS.map((m) => `${m.name}.sql`)).toEqual(files);
    for (const migration of EMBEDDED_MIGRATIONS) {
      expect(migration.sql).toBe(readFileSync(join(MIGRATIONS_DIR, `${migration.name}.sql`), "utf8"));
    }
  });

  test("a fresh database gets all of them once; a second run applies none", () => {
    const sqlite = memory();
    const names = EMBEDDED_MIGRATIONS.map((m) => m.name);
    expect(migrate(sqlite)).toEqual({ applied: names, alreadyApplied: 0 });
    expect(migrate(sqlite)).toEqual({ applied: [], alreadyApplied: names.length });
    const tables = sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((t) => t.name);
    expect(tables).toEqual(expect.arrayContaining(["tenants", "api_keys", "usage_counters", "audit_log", "jobs", "schema_migrations"]));
  });

  test("only the migrations a database lacks are applied", () => {
    const sqlite = memory();
    const [first, ...rest] = EMBEDDED_MIGRATIONS;
    expect(migrate(sqlite, first ? [first] : [])).toEqual({ applied: first ? [first.name] : [], alreadyApplied: 0 });
    expect(migrate(sqlite)).toEqual({ applied: rest.map((m) => m.name), alreadyApplied: 1 });
  });
});

describe("jobs", () => {
  const addTenant = (db: ReturnType<typeof openDb>, id: string) =>
    db.sqlite.run(
      "INSERT INTO tenants (id, slug, name, contact_email, plan, enabled_lists, created_at, updated_at) VALUES (?, ?, 'T', 't@example.com', 'standard', '[]', 'now', 'now')",
      [id, id],
    );
  const addJob = (db: ReturnType<typeof openDb>, id: string, tenant: string | null, key: string | null) =>
    db.sqlite.run("INSERT INTO jobs (id, tenant_id, kind, status, idempotency_key, run_after, created_at) VALUES (?, ?, 'batch', 'pending', ?, 'now', 'now')", [
      id,
      tenant,
      key,
    ]);

  test("an Idempotency-Key is unique per tenant and kind: another tenant may use the same key", () => {
    const db = openDb(":memory:");
    addTenant(db, "t1");
    addTenant(db, "t2");
    addJob(db, "j1", "t1", "k");
    addJob(db, "j2", "t2", "k");
    expect(() => addJob(db, "j3", "t1", "k")).toThrow("UNIQUE constraint failed");
    // The appliance's own jobs (no tenant) share one key space; jobs without a key never clash.
    addJob(db, "j4", null, "k");
    expect(() => addJob(db, "j5", null, "k")).toThrow("UNIQUE constraint failed");
    addJob(db, "j6", "t1", null);
    addJob(db, "j7", "t1", null);
    db.close();
  });

  test("the rebuild keeps the jobs written before it", () => {
    const sqlite = memory();
    const before = EMBEDDED_MIGRATIONS.filter((m) => m.name < "0011");
    migrate(sqlite, before);
    sqlite.run("INSERT INTO jobs (id, kind, status, idempotency_key, run_after, created_at) VALUES ('j1', 'reload', 'pending', 'k', 'now', 'now')");
    migrate(sqlite);
    expect(sqlite.query<{ id: string; idempotency_key: string }, []>("SELECT id, idempotency_key FROM jobs").all()).toEqual([{ id: "j1", idempotency_key: "k" }]);
  });
});

describe("refusals", () => {
  test("a migration whose text changed after it was applied stops start-up", () => {
    const sqlite = memory();
    migrate(sqlite);
    const edited = EMBEDDED_MIGRATIONS.map((m, i) => (i === 0 ? { ...m, sql: `${m.sql}\n-- edited after release\n` } : m));
    expect(() => migrate(sqlite, edited)).toThrow(MigrationError);
    expect(() => migrate(sqlite, edited)).toThrow(`Migration ${EMBEDDED_MIGRATIONS[0]?.name} was changed after it was applied`);
  });

  test("a database carrying a migration this binary does not know is refused, also by openDb", () => {
    const dataDir = tempDataDir("aml-migrate-");
    dirs.push(dataDir);
    openDb(dataDir).close();
    const raw = new Database(join(dataDir, DB_FILE));
    raw.run("INSERT INTO schema_migrations (name, sha256, applied_at) VALUES ('9999_newer', 'abc', '2099-01-01T00:00:00Z')");
    expect(() => migrate(raw)).toThrow("it has migration 9999_newer, unknown to this binary");
    raw.close();
    expect(() => openDb(dataDir)).toThrow(MigrationError);
  });

  test("a failing migration leaves nothing half-applied", () => {
    const sqlite = memory();
    migrate(sqlite);
    const broken = [...EMBEDDED_MIGRATIONS, { name: "9000_broken", sql: "CREATE TABLE half (x INTEGER);\nINSERT INTO no_such_table VALUES (1);" }];
    expect(() => migrate(sqlite, broken)).toThrow("no_such_table");
    expect(sqlite.query("SELECT name FROM sqlite_master WHERE name = 'half'").get()).toBeNull();
    expect(sqlite.query("SELECT name FROM schema_migrations WHERE name = '9000_broken'").get()).toBeNull();
  });
});

describe("while another process holds the write lock", () => {
  test("opening a migrated data folder only reads: openDb succeeds at once, as a restart or `aml lists status` does", () => {
    const dataDir = tempDataDir("aml-migrate-locked-");
    dirs.push(dataDir);
    openDb(dataDir).close();
    // Another connection holds the write lock, as an import stopped mid-transaction would.
    const holder = new Database(join(dataDir, DB_FILE));
    holder.run("BEGIN IMMEDIATE");
    try {
      const started = performance.now();
      const db = openDb(dataDir);
      try {
        // A BEGIN IMMEDIATE per migration waited out the 10 s busy timeout and threw "database is locked".
        expect(performance.now() - started).toBeLessThan(5_000);
        expect(migrate(db.sqlite)).toEqual({ applied: [], alreadyApplied: EMBEDDED_MIGRATIONS.length });
      } finally {
        db.close();
      }
    } finally {
      holder.run("ROLLBACK");
      holder.close();
    }
  });

  test("a migration still missing waits for the lock, and is applied once it is free", async () => {
    const dataDir = tempDataDir("aml-migrate-locked-");
    dirs.push(dataDir);
    const [first, second] = EMBEDDED_MIGRATIONS;
    if (!first || !second) throw new Error("need two migrations");
    const setup = new Database(join(dataDir, DB_FILE));
    setup.run("PRAGMA journal_mode = WAL");
    migrate(setup, [first]);
    setup.close();
    const holder = new Database(join(dataDir, DB_FILE));
    holder.run("BEGIN IMMEDIATE");
    const sqlite = new Database(join(dataDir, DB_FILE));
    sqlite.run("PRAGMA busy_timeout = 100");
    try {
      expect(() => migrate(sqlite, [first, second])).toThrow("database is locked");
      holder.run("ROLLBACK");
      expect(migrate(sqlite, [first, second])).toEqual({ applied: [second.name], alreadyApplied: 1 });
    } finally {
      holder.close();
      sqlite.close();
    }
  });
});

describe("connection settings", () => {
  test("WAL, busy_timeout, synchronous and foreign_keys read back from a file database", () => {
    const dataDir = tempDataDir("aml-pragma-");
    dirs.push(dataDir);
    const db = openDb(dataDir);
    try {
      const pragma = (name: string) => Object.values(db.sqlite.query<Record<string, unknown>, []>(`PRAGMA ${name}`).get() ?? {})[0];
      expect(pragma("journal_mode")).toBe("wal");
      expect(pragma("busy_timeout")).toBe(10000);
      expect(pragma("synchronous")).toBe(1);
      expect(pragma("foreign_keys")).toBe(1);
      expect(db.path).toBe(join(dataDir, DB_FILE));
    } finally {
      db.close();
    }
  });

  test("foreign keys are enforced: an API key for a tenant that does not exist is refused", () => {
    const db = openDb(":memory:");
    expect(() =>
      db.sqlite.run(
        "INSERT INTO api_keys (id, tenant_id, role, lookup_prefix, key_hash, created_at, created_by) VALUES ('k', 'no-tenant', 'auditor', 'p', 'h', 'now', 'test')",
      ),
    ).toThrow("FOREIGN KEY constraint failed");
    db.close();
  });
});
