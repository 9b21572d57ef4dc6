import { eq, or } from "drizzle-orm";
import { notFound } from "@/errors";
import { isUuid } from "@/lib/ids";
import type { Db } from "@/storage/db";
import { tenants } from "@/storage/schema";
import type { Tenant } from "./schemas";

type TenantRow = typeof tenants.$inferSelect;

export function toTenant(row: TenantRow): Tenant {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    contactEmail: row.contactEmail,
    plan: row.plan,
    enabledLists: JSON.parse(row.enabledLists) as string[],
    webhookUrl: row.webhookUrl,
    monthlyScreeningQuota: row.monthlyQuota,
    status: row.status,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function findTenantRow(db: Db, idOrSlug: string): TenantRow | undefined {
  const where = isUuid(idOrSlug) ? or(eq(tenants.id, idOrSlug), eq(tenants.slug, idOrSlug)) : eq(tenants.slug, idOrSlug);
  return db.orm.select().from(tenants).where(where).get();
}

/** Fetch-or-throw by id or slug (the CLI accepts either). */
export function getTenantRow(db: Db, idOrSlug: string): TenantRow {
  const row = findTenantRow(db, idOrSlug);
  if (!row) throw notFound(`Tenant ${idOrSlug}`);
  return row;
}
