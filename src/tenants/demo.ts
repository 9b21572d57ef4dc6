import { and, eq } from "drizzle-orm";
import { appendAudit } from "@/audit/append";
import type { AppContext, CallMeta } from "@/context";
import { writeTx } from "@/storage/db";
import { apiKeys } from "@/storage/schema";
import { createTenant } from "./create";
import { findTenantRow } from "./internal";
import { insertApiKey } from "./keys";

export const DEMO_SLUG = "demo";
const DEMO_KEY_LABEL = "demo key (aml serve --demo)";

/**
 * For `make run`: makes sure a demo tenant exists and returns a fresh API key for it, revoking the
 * key printed by the previous demo start so demo keys do not pile up. Never runs without --demo.
 */
export function ensureDemoTenant(ctx: AppContext, meta: CallMeta): { tenantId: string; apiKey: string; suspended: boolean } {
  if (!findTenantRow(ctx.db, DEMO_SLUG)) {
    const created = createTenant(
      ctx,
      {
        name: "Demo tenant",
        slug: DEMO_SLUG,
        contactEmail: "demo@example.invalid",
        plan: "demo",
        enabledLists: ["OFAC", "EU", "UK", "UN", "WIKIDATA"],
      },
      meta,
      { withoutSigningSecret: true },
    );
    writeTx(ctx.db, () => relabel(ctx, created.apiKeyId));
    return { tenantId: created.tenant.id, apiKey: created.apiKey, suspended: false };
  }
  return writeTx(ctx.db, () => {
    const tenant = findTenantRow(ctx.db, DEMO_SLUG);
    if (!tenant) throw new Error("demo tenant vanished");
    const now = ctx.clock.now();
    const previous = ctx.db.orm
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.tenantId, tenant.id), eq(apiKeys.label, DEMO_KEY_LABEL)))
      .all()
      .filter((k) => k.revokedAt === null);
    for (const key of previous) {
      ctx.db.orm
        .update(apiKeys)
        .set({ revokedAt: now.toISOString(), revokedBy: `${meta.actor.type}:${meta.actor.id}` })
        .where(eq(apiKeys.id, key.id))
        .run();
      appendAudit(ctx.db, {
        chain: tenant.id,
        action: "api_key.revoke",
        targetType: "api_key",
        targetId: key.id,
        at: now,
        meta,
        details: { label: key.label, reason: "replaced by a new demo start" },
      });
    }
    const key = insertApiKey(ctx, { tenantId: tenant.id, role: "compliance_analyst", label: DEMO_KEY_LABEL, at: now, meta });
    // An operator may have suspended it (aml tenant suspend demo): the key is issued anyway, and the
    // banner says why it is refused, rather than resuming a tenant someone chose to stop.
    return { tenantId: tenant.id, apiKey: key.plaintext, suspended: tenant.status === "suspended" };
  });
}

function relabel(ctx: AppContext, keyId: string): void {
  ctx.db.orm.update(apiKeys).set({ label: DEMO_KEY_LABEL }).where(eq(apiKeys.id, keyId)).run();
}
