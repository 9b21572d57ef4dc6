import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Drizzle mirror of migrations/*.sql; the SQL files are the source of truth (a test compares the two). */

export const tenants = sqliteTable("tenants", {
  id: text("id").primaryKey(),
  slug: text("slug").notNull(),
  name: text("name").notNull(),
  contactEmail: text("contact_email").notNull(),
  plan: text("plan").notNull(),
  enabledLists: text("enabled_lists").notNull(),
  webhookUrl: text("webhook_url"),
  webhookSecretEnc: text("webhook_secret_enc"),
  monthlyQuota: integer("monthly_quota"),
  status: text("status", { enum: ["active", "suspended"] }).notNull(),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export const apiKeys = sqliteTable("api_keys", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id").notNull(),
  label: text("label"),
  role: text("role", { enum: ["compliance_analyst", "auditor"] }).notNull(),
  lookupPrefix: text("lookup_prefix").notNull(),
  keyHash: text("key_hash").notNull(),
  createdAt: text("created_at").notNull(),
  createdBy: text("created_by").notNull(),
  revokedAt: text("revoked_at"),
  revokedBy: text("revoked_by"),
});

export const usageCounters = sqliteTable("usage_counters", {
  tenantId: text("tenant_id").notNull(),
  period: text("period").notNull(),
  used: integer("used").notNull(),
});

export const auditLog = sqliteTable("audit_log", {
  id: text("id").primaryKey(),
  chain: text("chain").notNull(),
  seq: integer("seq").notNull(),
  at: text("at").notNull(),
  action: text("action").notNull(),
  targetType: text("target_type").notNull(),
  targetId: text("target_id"),
  actorType: text("actor_type").notNull(),
  actorId: text("actor_id").notNull(),
  correlationId: text("correlation_id"),
  details: text("details").notNull(),
  prevHash: text("prev_hash").notNull(),
  hash: text("hash").notNull(),
});

export const jobs = sqliteTable("jobs", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id"),
  kind: text("kind").notNull(),
  status: text("status", { enum: ["pending", "running", "completed", "failed"] }).notNull(),
  payload: text("payload").notNull(),
  idempotencyKey: text("idempotency_key"),
  attempts: integer("attempts").notNull(),
  maxAttempts: integer("max_attempts").notNull(),
  runAfter: text("run_after").notNull(),
  leaseOwner: text("lease_owner"),
  leaseExpiresAt: text("lease_expires_at"),
  progressDone: integer("progress_done").notNull(),
  progressTotal: integer("progress_total").notNull(),
  lastError: text("last_error"),
  createdAt: text("created_at").notNull(),
  startedAt: text("started_at"),
  finishedAt: text("finished_at"),
});

export const appMeta = sqliteTable("app_meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});
