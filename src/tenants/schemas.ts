import { z } from "zod";
import { notFound } from "@/errors";
import { withoutControls } from "@/lib/control-characters";
import { isUuid, storedId } from "@/lib/ids";
import { pathId } from "@/lib/validate";
import { SOURCE_LISTS } from "@/watchlists/entity";

export const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Free text an operator reads in `aml tenant list`, logs and exports: no control characters (lib/control-characters.ts). */
const adminText = (max: number) =>
  z
    .string()
    .trim()
    .min(1, "is required")
    .max(max)
    .superRefine((text, ctx) => {
      withoutControls(text, ctx);
    });

// A URL holds none of these: new URL() drops tabs and line breaks and percent-encodes spaces, and
// the host's IDNA mapping drops invisible characters (a soft hyphen or a zero-width space:
// "exam\u00ADple.com" is called as example.com), so the URL called would differ from the one stored,
// shown and audited. Format characters (bidirectional overrides among them) and default-ignorable
// ones are refused anywhere in it, the path too, where an override reorders what a reader sees.
// Trimmed first, as before.
const URL_UNSAFE_RE = /[\s\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
export const URL_UNSAFE_MESSAGE = "must not contain control characters, invisible characters or spaces (percent-encode a space as %20)";

/**
 * The host as written: after "//", before the port, path, query or fragment. A percent sign there is
 * decoded by the URL parser, and the same invisible characters come back that URL_UNSAFE_RE refuses
 * written out ("exam%C2%ADple.com" is called as example.com); a receiver's host never needs one.
 */
const ENCODED_HOST_RE = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*%/i;
export const ENCODED_HOST_MESSAGE = "must not percent-encode its host: write the host name as it is";

/** A webhook receiver URL as sent; the URL policy (webhooks/url-policy.ts) checks scheme and host later. */
const WebhookUrl = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .refine((url) => !URL_UNSAFE_RE.test(url), URL_UNSAFE_MESSAGE)
  .refine((url) => !ENCODED_HOST_RE.test(url), ENCODED_HOST_MESSAGE);

/** The largest monthly screening quota a tenant may be given. */
export const MAX_MONTHLY_QUOTA = 1_000_000_000;

/**
 * One message per value: 1e20 is beyond a safe integer, and zod's int check also failed it, so the
 * caller read "must be a whole number; must be at most 1,000,000,000" of a whole number. The bounds
 * come first and stop the checks after them.
 */
export const QuotaValue = z
  .number()
  .max(MAX_MONTHLY_QUOTA, { error: `must be at most ${MAX_MONTHLY_QUOTA.toLocaleString("en-US")}`, abort: true })
  .min(0, { error: "must be 0 or more", abort: true })
  .int("must be a whole number")
  .nullable();

/** POST /v1/tenants body (spec, Resources); also what `aml tenant create` validates. */
export const CreateTenantInput = z
  .object({
    name: adminText(200),
    slug: z
      .string()
      .trim()
      .regex(SLUG_RE, "must be 1-63 lowercase letters, digits or hyphens, starting and ending with a letter or digit"),
    contactEmail: z.email("must be an e-mail address").max(320),
    plan: adminText(100),
    enabledLists: z
      .array(z.enum(SOURCE_LISTS, { error: `must be one of ${SOURCE_LISTS.join(", ")}` }))
      .min(1, "must name at least one list")
      .refine((lists) => new Set(lists).size === lists.length, "must not repeat a list"),
    webhookUrl: WebhookUrl.nullish(),
    monthlyScreeningQuota: QuotaValue.optional(),
  })
  .strict();
export type CreateTenantInput = z.infer<typeof CreateTenantInput>;

/** PUT /v1/tenants/{id}/webhook body: the receiver URL, or null to stop queueing events. */
export const SetWebhookInput = z.object({ webhookUrl: WebhookUrl.nullable() }).strict();
export type SetWebhookInput = z.infer<typeof SetWebhookInput>;

export const SetQuotaInput = z.object({ monthlyScreeningQuota: QuotaValue }).strict();
export type SetQuotaInput = z.infer<typeof SetQuotaInput>;

/**
 * POST /v1/tenants/{id}/suspend and /resume body (tenants/status.ts): why, for the tenant's audit
 * chain. Required both ways: a chain that shows a gap in a tenant's screening should say who closed
 * it and why, and who opened it again.
 */
export const StatusChangeInput = z.object({ reason: adminText(500) }).strict();
export type StatusChangeInput = z.infer<typeof StatusChangeInput>;

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
