import m0000 from "../../migrations/0000_foundation.sql" with { type: "text" };
import m0001 from "../../migrations/0001_watchlists.sql" with { type: "text" };
import m0002 from "../../migrations/0002_webhooks.sql" with { type: "text" };
import m0003 from "../../migrations/0003_screenings.sql" with { type: "text" };
import m0004 from "../../migrations/0004_fewer_index_writes.sql" with { type: "text" };
import m0005 from "../../migrations/0005_no_replace.sql" with { type: "text" };
import m0006 from "../../migrations/0006_dead_deliveries.sql" with { type: "text" };
import m0007 from "../../migrations/0007_deliveries_by_screening.sql" with { type: "text" };
import m0008 from "../../migrations/0008_no_replace_by_rowid.sql" with { type: "text" };
import m0009 from "../../migrations/0009_counters_and_changes_kept.sql" with { type: "text" };
import m0010 from "../../migrations/0010_keys_and_attempts_kept.sql" with { type: "text" };
import m0011 from "../../migrations/0011_job_keys_per_tenant.sql" with { type: "text" };
import m0012 from "../../migrations/0012_bulk_idempotency_keys.sql" with { type: "text" };
import m0013 from "../../migrations/0013_version_lists.sql" with { type: "text" };
import m0014 from "../../migrations/0014_counters_and_keys_not_replaced.sql" with { type: "text" };

/**
 * Every SQL migration, in order, embedded in the binary as text. A test checks that each file in
 * migrations/ is listed here, so a new file cannot be forgotten.
 */
export const EMBEDDED_MIGRATIONS: ReadonlyArray<{ name: string; sql: string }> = [
  { name: "0000_foundation", sql: m0000 },
  { name: "0001_watchlists", sql: m0001 },
  { name: "0002_webhooks", sql: m0002 },
  { name: "0003_screenings", sql: m0003 },
  { name: "0004_fewer_index_writes", sql: m0004 },
  { name: "0005_no_replace", sql: m0005 },
  { name: "0006_dead_deliveries", sql: m0006 },
  { name: "0007_deliveries_by_screening", sql: m0007 },
  { name: "0008_no_replace_by_rowid", sql: m0008 },
  { name: "0009_counters_and_changes_kept", sql: m0009 },
  { name: "0010_keys_and_attempts_kept", sql: m0010 },
  { name: "0011_job_keys_per_tenant", sql: m0011 },
  { name: "0012_bulk_idempotency_keys", sql: m0012 },
  { name: "0013_version_lists", sql: m0013 },
  { name: "0014_counters_and_keys_not_replaced", sql: m0014 },
];
