import { appendAudit } from "@/audit/append";
import { generateWebhookSecret } from "@/auth/api-key-format";
import type { Config } from "@/config";
import type { AppContext, CallMeta } from "@/context";
import { ServiceError } from "@/errors";
import { newId } from "@/lib/ids";
import { parseInput } from "@/lib/validate";
import { writeTx } from "@/storage/db";
import { groupCommit } from "@/storage/group-commit";
import { tenants } from "@/storage/schema";
import type { LookupFn } from "@/webhooks/send-target";
import { checkWebhookUrl, recordableUrl } from "@/webhooks/url-policy";
import { insertApiKey } from "./keys";
import { findTenantRow, toTenant } from "./internal";
import { CreateTenantInput, type Tenant } from "./schemas";
import { assertReceiverUrl, webhookUrlRefused } from "./webhook";

export interface CreatedTenant {
  tenant: Tenant;
  /** Shown exactly once. */
  apiKey: string;
  apiKeyId: string;
  /**
   * The whsec_ signing secret, shown exactly once. Issued at every onboarding, with or without a
   * webhookUrl, as the contract says, so a receiver can be set up before its URL is registered.
   * null only for the demo tenant (CreateTenantOptions.withoutSigningSecret), whose creation nobody sees.
   */
  webhookSigningSecret: string | null;
}

/** A tenant onboarded through the admin API or `aml tenant create`: it always has its secret. */
export type OnboardedTenant = CreatedTenant & { webhookSigningSecret: string };

/**
 * How createTenant treats the signing secret. The demo tenant is created at `aml serve --demo`
 * start, where nothing shows a secret: it gets none, so setting a URL on it later issues one and
 * shows it (setWebhookUrl), rather than the tenant holding a secret no one has seen.
 */
export interface CreateTenantOptions {
  withoutSigningSecret?: boolean;
}

/**
 * Onboarding as the admin API and `aml tenant create` run it: createTenant after the webhook URL's
 * host name, if any, was resolved and found not to point at a private address the operator did not
 * allow-list (checkReceiverUrl), as the dispatcher would find at every delivery.
 */
export async function onboardTenant(ctx: AppContext, rawInput: unknown, meta: CallMeta, lookup?: LookupFn): Promise<OnboardedTenant> {
  const input = parseInput(CreateTenantInput, rawInput, "Tenant");
  // checkReceiverUrl includes the URL policy createTenant applies, so the input is inserted as checked.
  if (input.webhookUrl) await assertReceiverUrl(ctx, input.webhookUrl, lookup);
  const secret = generateWebhookSecret();
  // Through the group commit: a serving process waits for a lock another process holds without stopping.
  const created = await groupCommit(ctx.db).run(() => insertTenant(ctx, input, meta, secret));
  return { ...created, webhookSigningSecret: secret };
}

/**
 * Onboards a tenant with a first API key (compliance_analyst) and a webhook signing secret. Checks
 * the URL policy without DNS (synchronous, for the demo tenant and fixtures); onboardTenant adds
 * the resolution check.
 */
export function createTenant(ctx: AppContext, rawInput: unknown, meta: CallMeta, options: CreateTenantOptions = {}): CreatedTenant {
  const input = checkNewTenant(ctx.config, rawInput);
  return insertTenant(ctx, input, meta, options.withoutSigningSecret ? null : generateWebhookSecret());
}

/**
 * The onboarding input parsed, and its webhook URL held to the URL policy without DNS: what can be
 * refused before anything is stored. `aml tenant create` runs it before it opens, or creates, a data
 * folder, so that a mistake in the command's values creates nothing. A host name that resolves to a
 * private address is refused later, by onboardTenant's DNS check, once the folder is open.
 */
export function checkNewTenant(config: Config, rawInput: unknown): CreateTenantInput {
  const input = parseInput(CreateTenantInput, rawInput, "Tenant");
  if (input.webhookUrl) {
    const check = checkWebhookUrl(input.webhookUrl, { allowPrivate: config.webhooks.allowPrivateNetworks });
    if (!check.ok) throw webhookUrlRefused(check.reason);
  }
  return input;
}

/**
 * The tenant row, its audit entry and first API key, in one transaction; the input already
 * validated, and the signing secret (or null) chosen by the caller.
 */
function insertTenant(ctx: AppContext, input: CreateTenantInput, meta: CallMeta, secret: string | null): CreatedTenant {
  const now = ctx.clock.now();
  const id = newId();

  return writeTx(ctx.db, () => {
    if (findTenantRow(ctx.db, input.slug)) {
      throw new ServiceError("CONFLICT", `A tenant with slug "${input.slug}" already exists`, {
        fieldIssues: [{ field: "slug", message: "is already taken" }],
      });
    }
    ctx.db.orm
      .insert(tenants)
      .values({
        id,
        slug: input.slug,
        name: input.name,
        contactEmail: input.contactEmail,
        plan: input.plan,
        enabledLists: JSON.stringify(input.enabledLists),
        webhookUrl: input.webhookUrl ?? null,
        webhookSecretEnc: secret ? ctx.secrets.seal(secret) : null,
        monthlyQuota: input.monthlyScreeningQuota ?? null,
        status: "active",
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      })
      .run();
    const row = findTenantRow(ctx.db, id);
    if (!row) throw new Error("tenant row vanished inside its own transaction");
    const tenant = toTenant(row);
    appendAudit(ctx.db, {
      chain: id,
      action: "tenant.create",
      targetType: "tenant",
      targetId: id,
      at: now,
      meta,
      // The tenant as onboarded, its webhook URL without a query string (which may carry a token; recordableUrl).
      details: { tenant: { ...tenant, webhookUrl: recordableUrl(tenant.webhookUrl) }, webhookSigningSecretIssued: secret !== null },
    });
    const key = insertApiKey(ctx, { tenantId: id, role: "compliance_analyst", label: "initial", at: now, meta });
    return { tenant, apiKey: key.plaintext, apiKeyId: key.id, webhookSigningSecret: secret };
  });
}
