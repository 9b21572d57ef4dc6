import { eq } from "drizzle-orm";
import { appendAudit } from "@/audit/append";
import { generateWebhookSecret } from "@/auth/api-key-format";
import type { AppContext, CallMeta } from "@/context";
import { ServiceError } from "@/errors";
import { parseInput } from "@/lib/validate";
import { writeTx } from "@/storage/db";
import { groupCommit, type PreparedWrite } from "@/storage/group-commit";
import { tenants } from "@/storage/schema";
import { checkSendTarget, type LookupFn, systemLookup } from "@/webhooks/send-target";
import { checkWebhookUrl, recordableUrl, type UrlCheck } from "@/webhooks/url-policy";
import { getTenantRow, toTenant } from "./internal";
import { SetWebhookInput, type Tenant } from "./schemas";

/** A tenant with a signing secret that is shown this once (null when none was issued). */
export interface TenantWithSecret {
  tenant: Tenant;
  webhookSigningSecret: string | null;
}

/**
 * 400 naming the webhookUrl field, the same problem for onboarding and PUT /v1/tenants/{id}/webhook.
 * The policy's reasons are sentences of their own ("scheme ftp is not allowed; use http or https"),
 * so the detail names the field and then gives the reason.
 */
export function webhookUrlRefused(reason: string): ServiceError {
  return new ServiceError("VALIDATION_FAILED", `webhookUrl is refused: ${reason}`, {
    fieldIssues: [{ field: "webhookUrl", message: reason }],
  });
}

/**
 * The URL policy as a new receiver URL must pass it: the syntactic check (scheme, credentials,
 * private literals), then, for a host name, the dispatcher's own send-time check on the resolved
 * addresses (checkSendTarget). A name that resolves to a private address that is not allow-listed
 * is refused now rather than on every delivery. A name that does not resolve from here (not yet in
 * DNS, or no DNS on the appliance) is accepted: the dispatcher resolves it again whenever it claims
 * the tenant's due deliveries into its slots, before it sends them. Waits at most
 * webhooks.timeoutMs for DNS. `config` is the calling process's: the CLI judges with its own
 * --config and AML_* environment (appliance/OPERATIONS.md).
 */
export async function checkReceiverUrl(ctx: Pick<AppContext, "config">, url: string, lookup: LookupFn = systemLookup): Promise<UrlCheck> {
  const policy = { allowPrivate: ctx.config.webhooks.allowPrivateNetworks };
  const target = await checkSendTarget(url, policy, lookup, ctx.config.webhooks.timeoutMs);
  // A name that does not resolve from here is judged by the URL alone; the dispatcher resolves it again.
  return target.ok || !("unresolved" in target) ? target : checkWebhookUrl(url, policy);
}

/** Throws the 400 of webhookUrlRefused when checkReceiverUrl refuses `url`. */
export async function assertReceiverUrl(ctx: Pick<AppContext, "config">, url: string, lookup?: LookupFn): Promise<void> {
  const check = await checkReceiverUrl(ctx, url, lookup);
  if (!check.ok) throw webhookUrlRefused(check.reason);
}

/**
 * Sets (or, with null, clears) a tenant's webhook URL. A tenant without a signing secret (the demo
 * tenant, or one onboarded without a URL by an earlier version) gets one when a URL is set,
 * returned this once. Otherwise the secret is
 * kept (clearing a URL keeps it too; rotate it with rotateWebhookSecret). The dispatcher reads the
 * URL whenever it claims the tenant's due deliveries into its slots, so events already queued go to
 * the new URL; with the URL cleared nothing new is queued, and queued events fail their attempts
 * until a URL is set again or they are dead.
 */
export async function setWebhookUrl(
  ctx: AppContext,
  tenantRef: string,
  rawInput: unknown,
  meta: CallMeta,
  lookup?: LookupFn,
): Promise<TenantWithSecret> {
  const input = parseInput(SetWebhookInput, rawInput, "Webhook request");
  // 404 before a DNS lookup for a tenant that does not exist.
  getTenantRow(ctx.db, tenantRef);
  if (input.webhookUrl !== null) await assertReceiverUrl(ctx, input.webhookUrl, lookup);
  // Through the group commit: a serving process waits for a lock another process holds without stopping.
  return groupCommit(ctx.db).run(() => {
    const row = getTenantRow(ctx.db, tenantRef);
    const at = ctx.clock.now();
    const now = at.toISOString();
    const secret = input.webhookUrl !== null && row.webhookSecretEnc === null ? generateWebhookSecret() : null;
    const webhookSecretEnc = secret ? ctx.secrets.seal(secret) : row.webhookSecretEnc;
    ctx.db.orm
      .update(tenants)
      .set({ webhookUrl: input.webhookUrl, webhookSecretEnc, updatedAt: now })
      .where(eq(tenants.id, row.id))
      .run();
    appendAudit(ctx.db, {
      chain: row.id,
      action: "webhook_url.set",
      targetType: "tenant",
      targetId: row.id,
      at,
      meta,
      // Origin and path only: a query string may carry the receiver's token (recordableUrl).
      details: { previous: recordableUrl(row.webhookUrl), webhookUrl: recordableUrl(input.webhookUrl), webhookSigningSecretIssued: secret !== null },
    });
    return { tenant: toTenant({ ...row, webhookUrl: input.webhookUrl, webhookSecretEnc, updatedAt: now }), webhookSigningSecret: secret };
  });
}

type RotatedSecret = TenantWithSecret & { webhookSigningSecret: string };

/**
 * Replaces a tenant's webhook signing secret with a new whsec_ secret, sealed under master.key like
 * the one issued at onboarding (HMAC needs the secret itself, so it cannot be hashed), and returns
 * it this once. The old secret is gone at once: the dispatcher unseals the secret whenever it claims
 * the tenant's due deliveries into its slots, so every attempt signed after this commit (retries of
 * events queued earlier included) uses the new one. Works without a URL too, so a secret can be
 * handed over before the URL is set.
 */
export function rotateWebhookSecret(ctx: AppContext, tenantRef: string, meta: CallMeta): RotatedSecret {
  return prepareRotateWebhookSecret(ctx, tenantRef, meta)();
}

/** rotateWebhookSecret with its tenant found now, and the write returned for the group commit. */
export function prepareRotateWebhookSecret(ctx: AppContext, tenantRef: string, meta: CallMeta): PreparedWrite<RotatedSecret> {
  getTenantRow(ctx.db, tenantRef);
  const secret = generateWebhookSecret();
  return () => writeTx(ctx.db, () => {
    const row = getTenantRow(ctx.db, tenantRef);
    const at = ctx.clock.now();
    const now = at.toISOString();
    const webhookSecretEnc = ctx.secrets.seal(secret);
    ctx.db.orm.update(tenants).set({ webhookSecretEnc, updatedAt: now }).where(eq(tenants.id, row.id)).run();
    appendAudit(ctx.db, {
      chain: row.id,
      action: "webhook_secret.rotate",
      targetType: "tenant",
      targetId: row.id,
      at,
      meta,
      details: { hadSecret: row.webhookSecretEnc !== null, webhookUrl: recordableUrl(row.webhookUrl) },
    });
    return { tenant: toTenant({ ...row, webhookSecretEnc, updatedAt: now }), webhookSigningSecret: secret };
  });
}
