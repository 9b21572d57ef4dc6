import { z } from "zod";
import { notFound } from "@/errors";
import { isUuid, storedId } from "@/lib/ids";
import { pathId } from "@/lib/validate";
import { SOURCE_LISTS } from "@/watchlists/entity";

export const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export const QuotaValue = z
  .number()
  .int("must be a whole number")
  .min(0, "must be 0 or more")
  .max(1_000_000_000, "must be at most 1,000,000,000")
  .nullable();

/** POST /v1/tenants body (spec, Resources); also what `aml tenant create` validates. */
export const CreateTenantInput = z
  .object({
    name: z.string().trim().min(1, "is required").max(200),
    slug: z
      .string()
      .trim()
      .regex(SLUG_RE, "must be 1-63 lowercase letters, digits or hyphens, starting and ending with a letter or digit"),
    contactEmail: z.email("must be an e-mail address").max(320),
    plan: z.string().trim().min(1, "is required").max(100),
    enabledLists: z
      .array(z.enum(SOURCE_LISTS, { error: `must be one of ${SOURCE_LISTS.join(", ")}` }))
      .min(1, "must name at least one list")
      .refine((lists) => new Set(lists).size === lists.length, "must not repeat a list"),
    webhookUrl: z.string().trim().min(1).max(2048).nullish(),
    monthlyScreeningQuota: QuotaValue.optional(),
  })
  .strict();
export type CreateTenantInput = z.infer<typeof CreateTenantInput>;

/** PUT /v1/tenants/{id}/webhook body: the receiver URL, or null to stop queueing events. */
export const SetWebhookInput = z.object({ webhookUrl: z.string().trim().min(1).max(2048).nullable() }).strict();
export type SetWebhookInput = z.infer<typeof SetWebhookInput>;

export const SetQuotaInput = z.object({ monthlyScreeningQuota: QuotaValue }).strict();
export type SetQuotaInput = z.infer<typeof SetQuotaInput>;

/** Public tenant shape; secrets are never part of it. */
export interface Tenant {
  id: string;
  name: string;
  slug: string;
  contactEmail: string;
  plan: string;
  enabledLists: string[];
  webhookUrl: string | null;
  monthlyScreeningQuota: number | null;
  status: "active" | "suspended";
  createdAt: string;
  updatedAt: string;
}

/** The `{id}` of a /v1/tenants/{id}/... route (tenant, its keys, quota, webhook, risk profile). */
export const TenantParams = z.object({ id: pathId("Tenant id (UUID)") }).strict();

/** Admin routes address tenants by UUID; a non-UUID id is simply not found. */
export function tenantIdFromPath(id: string): string {
  if (!isUuid(id)) throw notFound(`Tenant ${id}`);
  return storedId(id);
}
