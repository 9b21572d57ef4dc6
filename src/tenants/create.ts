import { appendAudit } from "@/audit/append";
import { generateWebhookSecret } from "@/auth/api-key-format";
import type { AppContext, CallMeta } from "@/context";
import { ServiceError } from "@/errors";
import { newId } from "@/lib/ids";
import { parseInput } from "@/lib/validate";
import { writeTx } from "@/storage/db";
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
  /** Shown exactly once; null when no webhookUrl was given. */
  webhookSigningSecret: string | null;
}

/**
 * Onboarding as the admin API and `aml tenant create` run it: createTenant after the webhook URL's
 * host name, if any, was resolved and found not to point at a private address the operator did not
 * allow-list (checkReceiverUrl), as the dispatcher would find at every delivery.
 */
export async function onboardTenant(ctx: AppContext, rawInput: unknown, meta: CallMeta, lookup?: LookupFn): Promise<CreatedTenant> {
  const input = parseInput(CreateTenantInput, rawInput, "Tenant");
  // checkReceiverUrl includes the URL policy createTenant applies, so the input is inserted as checked.
  if (input.webhookUrl) await assertReceiverUrl(ctx, input.webhookUrl, lookup);
  return insertTenant(ctx, input, meta);
}

/**
 * Onboards a tenant with a first API key (compliance_analyst) and, with a webhook URL, a signing
 * secret. Checks the URL policy without DNS (synchronous, for the demo tenant and fixtures);
 * onboardTenant adds the resolution check.
 */
export function createTenant(ctx: AppContext, rawInput: unknown, meta: CallMeta): CreatedTenant {
  const input = parseInput(CreateTenantInput, rawInput, "Tenant");
  if (input.webhookUrl) {
    const check = checkWebhookUrl(input.webhookUrl, { allowPrivate: ctx.config.webhooks.allowPrivateNetworks });
    if (!check.ok) throw webhookUrlRefused(check.reason);
  }
  return insertTenant(ctx, input, meta);
}

/** The tenant row, its audit entry and first API key, in one transaction; the input already validated. */
function insertTenant(ctx: AppContext, input: CreateTenantInput, meta: CallMeta): CreatedTenant {
  const now = ctx.clock.now();
  const id = newId();
  const secret = input.webhookUrl ? generateWebhookSecret() : null;

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
