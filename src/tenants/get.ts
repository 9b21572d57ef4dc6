import { asc } from "drizzle-orm";
import type { Db } from "@/storage/db";
import { tenants } from "@/storage/schema";
import { getTenantRow, toTenant } from "./internal";
import type { Tenant } from "./schemas";

export function getTenant(db: Db, idOrSlug: string): Tenant {
  return toTenant(getTenantRow(db, idOrSlug));
}

export function listTenants(db: Db): Tenant[] {
  return db.orm.select().from(tenants).orderBy(asc(tenants.createdAt), asc(tenants.id)).all().map(toTenant);
}
