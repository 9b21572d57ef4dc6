import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { migrate } from "@/storage/migrate";
import * as schema from "@/storage/schema";

/** The drizzle mirror in schema.ts must describe the tables the SQL migrations actually create. */
const tables = Object.values(schema as Record<string, unknown>).filter((value): value is SQLiteTable => is(value, SQLiteTable));

interface ColumnInfo {
  name: string;
  type: string;
  notnull: number;
  pk: number;
}

const sqlite = new Database(":memory:", { strict: true });
migrate(sqlite);

describe("schema.ts mirrors migrations/*.sql", () => {
  test("the mirror declares the foundation tables", () => {
    expect(tables.map((t) => getTableConfig(t).name)).toEqual(
      expect.arrayContaining(["tenants", "api_keys", "usage_counters", "audit_log", "jobs", "app_meta"]),
    );
  });

  test.each(tables.map((t) => [getTableConfig(t).name, t] as const))("%s: same columns, types and NOT NULL", (name, table) => {
    const actual = sqlite.query<ColumnInfo, []>(`PRAGMA table_info(${name})`).all();
    expect(actual.length).toBeGreaterThan(0);
    const declared = getTableConfig(table).columns.map((c) => ({
      name: c.name,
      type: c.getSQLType().toUpperCase(),
      notNull: c.notNull || c.primary,
    }));
    const inSql = actual.map((c) => ({ name: c.name, type: c.type.toUpperCase(), notNull: c.notnull === 1 || c.pk === 1 }));
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect(declared.sort(byName)).toEqual(inSql.sort(byName));
  });
});
