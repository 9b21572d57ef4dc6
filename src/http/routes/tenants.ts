import { Elysia } from "elysia";
import { z } from "zod";
import type { Principal } from "@/auth/principal";
import type { CallMeta } from "@/context";
import { isUuid } from "@/lib/ids";
import { notFound } from "@/errors";
import { onboardTenant } from "@/tenants/create";
import { getTenant, listTenants } from "@/tenants/get";
import { issueApiKey, listApiKeys, revokeApiKey } from "@/tenants/keys";
import { setQuota } from "@/tenants/quota";
import { CreateTenantInput, SetQuotaInput, SetWebhookInput } from "@/tenants/schemas";
import { rotateWebhookSecret, setWebhookUrl } from "@/tenants/webhook";
import type { HttpDeps } from "../deps";
import { guard, secured } from "../guard";
import { requestState } from "../request-state";

const TenantParams = z.object({ id: z.string().min(1).max(100) }).strict();
const KeyParams = z.object({ id: z.string().min(1).max(100), keyId: z.string().min(1).max(100) }).strict();
const IssueKeyQuery = z
  .object({
    label: z.string().max(200).optional().describe("What the key is for"),
    role: z.enum(["compliance_analyst", "auditor"]).optional().describe("compliance_analyst (default) or auditor (read only)"),
  })
  .strict();

function adminMeta(admin: Principal, request: Request): CallMeta {
  return { actor: admin.actor, correlationId: requestState(request).correlationId };
}

/** Admin routes address tenants by UUID; a non-UUID id is simply not found. */
function tenantId(id: string): string {
  if (!isUuid(id)) throw notFound(`Tenant ${id}`);
  return id;
}

/** Onboarding, key, quota and webhook management: bearer token with the admin role only (spec, Authentication rule 2). */
export function tenantRoutes(deps: HttpDeps) {
  return new Elysia()
    .use(guard(deps))
    .post(
      "/v1/tenants",
      async ({ admin, body, request, set }) => {
        const created = await onboardTenant(deps, body, adminMeta(admin, request));
        set.status = 201;
        set.headers.location = `/v1/tenants/${created.tenant.id}`;
        return {
          ...created.tenant,
          apiKey: created.apiKey,
          apiKeyId: created.apiKeyId,
          webhookSigningSecret: created.webhookSigningSecret,
        };
      },
      {
        admin: true,
        // "json" names the content type in OpenAPI; the app's size-limited JSON parser still does the parsing.
        parse: "json",
        body: CreateTenantInput,
        detail: secured("Admin", {
          summary: "Onboard a tenant",
          description:
            "Creates the tenant and its first API key (role compliance_analyst). Returns the tenant with apiKey, apiKeyId and, when webhookUrl is set, webhookSigningSecret (whsec_…) — both exactly once; they cannot be read again. 400 on an invalid name, slug, e-mail, list or webhook URL (including a host name that resolves to a private address the operator did not allow-list); 409 when the slug exists. Audited as tenant.create and api_key.issue with the token's sub.",
          tags: ["Tenants (admin)"],
        }),
      },
    )
    .get("/v1/tenants", () => ({ items: listTenants(deps.db) }), {
      admin: true,
      detail: secured("Admin", { summary: "List tenants", tags: ["Tenants (admin)"] }),
    })
    .get("/v1/tenants/:id", ({ params }) => getTenant(deps.db, tenantId(params.id)), {
      admin: true,
      params: TenantParams,
      detail: secured("Admin", { summary: "Read a tenant", tags: ["Tenants (admin)"] }),
    })
    .get("/v1/tenants/:id/api-keys", ({ params }) => ({ items: listApiKeys(deps, tenantId(params.id)) }), {
      admin: true,
      params: TenantParams,
      detail: secured("Admin", { summary: "List a tenant's API keys (never the secrets)", tags: ["Tenants (admin)"] }),
    })
    .post(
      "/v1/tenants/:id/api-keys",
      ({ admin, params, query, request, set }) => {
        const issued = issueApiKey(
          deps,
          { tenant: tenantId(params.id), label: query.label ?? null, role: query.role },
          adminMeta(admin, request),
        );
        set.status = 201;
        return { ...issued.key, apiKey: issued.apiKey };
      },
      {
        admin: true,
        params: TenantParams,
        query: IssueKeyQuery,
        detail: secured("Admin", {
          summary: "Issue an API key",
          description:
            "Query label (optional) and role (compliance_analyst by default, or auditor for read-only). Returns keyId and apiKey; the key is shown once. Rotation: issue a new key, then revoke the old one.",
          tags: ["Tenants (admin)"],
        }),
      },
    )
    .delete(
      "/v1/tenants/:id/api-keys/:keyId",
      ({ admin, params, request }) =>
        revokeApiKey(deps, { tenant: tenantId(params.id), keyId: params.keyId }, adminMeta(admin, request)),
      {
        admin: true,
        params: KeyParams,
        detail: secured("Admin", {
          summary: "Revoke an API key",
          description: "The key fails with 401 from the next request on. 404 for an unknown key or tenant; 409 when already revoked.",
          tags: ["Tenants (admin)"],
        }),
      },
    )
    .put(
      "/v1/tenants/:id/quota",
      ({ admin, params, body, request }) => setQuota(deps, tenantId(params.id), body, adminMeta(admin, request)),
      {
        admin: true,
        params: TenantParams,
        parse: "json",
        body: SetQuotaInput,
        detail: secured("Admin", {
          summary: "Set or clear the monthly screening quota",
          description: "Body { monthlyScreeningQuota: integer ≥ 0, or null for unlimited }. Returns the tenant. The next screening call is checked against the new value.",
          tags: ["Tenants (admin)"],
        }),
      },
    )
    .put(
      "/v1/tenants/:id/webhook",
      async ({ admin, params, body, request }) => {
        const updated = await setWebhookUrl(deps, tenantId(params.id), body, adminMeta(admin, request));
        return { ...updated.tenant, webhookSigningSecret: updated.webhookSigningSecret };
      },
      {
        admin: true,
        params: TenantParams,
        parse: "json",
        body: SetWebhookInput,
        detail: secured("Admin", {
          summary: "Set or clear the webhook URL",
          description:
            "Body { webhookUrl: string, or null to clear it }. The URL policy of onboarding applies: http or https, no credentials, no private or loopback host unless allow-listed, and a host name must not resolve to such an address (400 naming webhookUrl). Returns the tenant with webhookSigningSecret: a new whsec_ secret, shown this once, when the tenant had none (onboarded without a URL); otherwise null and the secret is unchanged. Events already queued are delivered to the new URL; with the URL cleared no new events are queued. Audited as webhook_url.set with the previous and new URL.",
          tags: ["Tenants (admin)"],
        }),
      },
    )
    .post(
      "/v1/tenants/:id/webhook/secret",
      ({ admin, params, request }) => {
        const rotated = rotateWebhookSecret(deps, tenantId(params.id), adminMeta(admin, request));
        return { ...rotated.tenant, webhookSigningSecret: rotated.webhookSigningSecret };
      },
      {
        admin: true,
        params: TenantParams,
        detail: secured("Admin", {
          summary: "Rotate the webhook signing secret",
          description:
            "Replaces the signing secret with a new whsec_ secret and returns the tenant with webhookSigningSecret, exactly once; it cannot be read again. The old secret stops at once: every delivery attempt signed after this call, including retries of events queued before it, is signed with the new secret. Audited as webhook_secret.rotate (never the secret).",
          tags: ["Tenants (admin)"],
        }),
      },
    );
}
