import { Database } from "bun:sqlite";
import { join } from "node:path";
import { DB_FILE } from "@/storage/db";

/** The append-only guards on audit_log (migrations/0000_foundation.sql), as tamperAuditLog puts them back. */
const AUDIT_LOG_TRIGGERS = {
  audit_log_no_update: "CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END",
  audit_log_no_delete: "CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END",
} as const;

export type AuditLogTrigger = keyof typeof AUDIT_LOG_TRIGGERS;

/**
 * What an attacker with write access to aml.db in `dataDir` does: their own connection, drop the
 * guard `trigger`, `edit`, put the guard back.
 */
export function tamperAuditLog(dataDir: string, trigger: AuditLogTrigger, edit: (db: Database) => void): void {
  const db = new Database(join(dataDir, DB_FILE));
  try {
    db.run(`DROP TRIGGER ${trigger}`);
    edit(db);
  } finally {
    db.run(AUDIT_LOG_TRIGGERS[trigger]);
    db.close();
  }
}
