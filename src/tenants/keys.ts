import { CONTROL_MESSAGE, hasControlCharacter } from "@/lib/control-characters";
import { and, asc, eq } from "drizzle-orm";
import { appendAudit } from "@/audit/append";
import { generateApiKey } from "@/auth/api-key-format";
import { API_KEY_ROLES, type ApiKeyRole } from "@/auth/roles";
import type { AppContext, CallMeta } from "@/context";
import { invalidInput, notFound, ServiceError } from "@/errors";
import { newId } from "@/lib/ids";
import { writeTx } from "@/storage/db";
import type { PreparedWrite } from "@/storage/group-commit";
import { apiKeys } from "@/storage/schema";
import { getTenantRow } from "./internal";

export interface ApiKeyInfo {
  keyId: string;
  tenantId: string;
  label: string | null;
  role: ApiKeyRole;
  /** The key's visible start, enough to tell keys apart; never the secret part. */
  hint: string;
  createdAt: string;
  createdBy: string;
  revokedAt: string | null;
  revokedBy: string | null;
}

type KeyRow = typeof apiKeys.$inferSelect;

function toInfo(row: KeyRow): ApiKeyInfo {
  return {
    keyId: row.id,
    tenantId: row.tenantId,
    label: row.label,
    role: row.role,
    hint: `aml_live_${row.lookupPrefix.slice(0, 4)}…`,
    createdAt: row.createdAt,
    createdBy: row.createdBy,
    revokedAt: row.revokedAt,
    revokedBy: row.revokedBy,
  };
}

/** Inserts a key and its audit entry; caller holds the write transaction. */
export function insertApiKey(
  ctx: AppContext,
  args: { tenantId: string; role: ApiKeyRole; label: string | null; at: Date; meta: CallMeta },
): { id: string; plaintext: string; info: ApiKeyInfo } {
  const key = generateApiKey();
  const id = newId();
  const row: KeyRow = {
    id,
    tenantId: args.tenantId,
    label: args.label,
    role: args.role,
    lookupPrefix: key.lookupPrefix,
    keyHash: key.hash,
    createdAt: args.at.toISOString(),
    createdBy: `${args.meta.actor.type}:${args.meta.actor.id}`,
    revokedAt: null,
    revokedBy: null,
  };
  ctx.db.orm.insert(apiKeys).values(row).run();
  const info = toInfo(row);
  appendAudit(ctx.db, {
    chain: args.tenantId,
    action: "api_key.issue",
    targetType: "api_key",
    targetId: id,
    at: args.at,
    meta: args.meta,
    details: { label: args.label, role: args.role, hint: info.hint },
  });
  return { id, plaintext: key.plaintext, info };
}

export function parseKeyRole(value: string | undefined): ApiKeyRole {
  const role = value ?? "compliance_analyst";
  if (!(API_KEY_ROLES as readonly string[]).includes(role)) {
    throw invalidInput(`role must be one of ${API_KEY_ROLES.join(", ")}`, [
      { field: "role", message: `must be one of ${API_KEY_ROLES.join(", ")}` },
    ]);
  }
  return role as ApiKeyRole;
}

function checkLabel(label: string | null | undefined): string | null {
  if (label === undefined || label === null || label.trim() === "") return null;
  if (label.length > 200) throw invalidInput("label must be at most 200 characters", [{ field: "label", message: "must be at most 200 characters" }]);
  const trimmed = label.trim();
  // `aml tenant keys` prints labels to a terminal; an ESC sequence or a line break there misleads.
  if (hasControlCharacter(trimmed)) throw invalidInput(`label ${CONTROL_MESSAGE}`, [{ field: "label", message: CONTROL_MESSAGE }]);
  return trimmed;
}

export interface IssuedApiKey {
  apiKey: string;
  key: ApiKeyInfo;
}

/** Issues a new key for a tenant; the plaintext is returned once. */
export function issueApiKey(ctx: AppContext, args: { tenant: string; label?: string | null; role?: string }, meta: CallMeta): IssuedApiKey {
  return prepareIssueApiKey(ctx, args, meta)();
}

/** issueApiKey with its role and label checked and its tenant found now, and the write returned for the group commit. */
export function prepareIssueApiKey(
  ctx: AppContext,
  args: { tenant: string; label?: string | null; role?: string },
  meta: CallMeta,
): PreparedWrite<IssuedApiKey> {
  const role = parseKeyRole(args.role);
  const label = checkLabel(args.label);
  getTenantRow(ctx.db, args.tenant);
  return () => writeTx(ctx.db, () => {
    const tenant = getTenantRow(ctx.db, args.tenant);
    const created = insertApiKey(ctx, { tenantId: tenant.id, role, label, at: ctx.clock.now(), meta });
    return { apiKey: created.plaintext, key: created.info };
  });
}

/** Revokes a key; takes effect on the next request (this transaction, or the CLI's commit, empties the row cache). */
export function revokeApiKey(ctx: AppContext, args: { tenant: string; keyId: string }, meta: CallMeta): ApiKeyInfo {
  return prepareRevokeApiKey(ctx, args, meta)();
}

/** revokeApiKey with its tenant and key found now (404 at once), and the write returned for the group commit; the key is read again under the lock. */
export function prepareRevokeApiKey(ctx: AppContext, args: { tenant: string; keyId: string }, meta: CallMeta): PreparedWrite<ApiKeyInfo> {
  const tenant = getTenantRow(ctx.db, args.tenant);
  const key = ctx.db.orm.select({ id: apiKeys.id }).from(apiKeys).where(and(eq(apiKeys.id, args.keyId), eq(apiKeys.tenantId, tenant.id))).get();
  if (!key) throw notFound(`API key ${args.keyId}`);
  return () => writeTx(ctx.db, () => {
    const tenant = getTenantRow(ctx.db, args.tenant);
    const row = ctx.db.orm
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.id, args.keyId), eq(apiKeys.tenantId, tenant.id)))
      .get();
    if (!row) throw notFound(`API key ${args.keyId}`);
    if (row.revokedAt) throw new ServiceError("CONFLICT", `API key ${args.keyId} was already revoked at ${row.revokedAt}`);
    const now = ctx.clock.now();
    const revokedBy = `${meta.actor.type}:${meta.actor.id}`;
    ctx.db.orm
      .update(apiKeys)
      .set({ revokedAt: now.toISOString(), revokedBy })
      .where(eq(apiKeys.id, row.id))
      .run();
    appendAudit(ctx.db, {
      chain: tenant.id,
      action: "api_key.revoke",
      targetType: "api_key",
      targetId: row.id,
      at: now,
      meta,
      details: { label: row.label, role: row.role },
    });
    return toInfo({ ...row, revokedAt: now.toISOString(), revokedBy });
  });
}

export function listApiKeys(ctx: AppContext, tenantRef: string): ApiKeyInfo[] {
  const tenant = getTenantRow(ctx.db, tenantRef);
  return ctx.db.orm
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.tenantId, tenant.id))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
    .all()
    .map(toInfo);
}
