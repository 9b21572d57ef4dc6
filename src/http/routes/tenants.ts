import { Elysia } from "elysia";
import { NoQuery } from "@/http/empty-input";
import { z } from "zod";
import { withoutControls } from "@/lib/control-characters";
import { pathId } from "@/lib/validate";
import { onboardTenant } from "@/tenants/create";
import { getTenant, listTenants } from "@/tenants/get";
import { listApiKeys, prepareIssueApiKey, prepareRevokeApiKey } from "@/tenants/keys";
import { prepareSetQuota } from "@/tenants/quota";
import {
  API_KEY_LIST_SCHEMA,
  API_KEY_SCHEMA,
  CREATED_TENANT_SCHEMA,
  ISSUED_API_KEY_SCHEMA,
  TENANT_LIST_SCHEMA,
  TENANT_SCHEMA,
  TENANT_WITH_SECRET_SCHEMA,
} from "@/tenants/response-schemas";
import { CreateTenantInput, SetQuotaInput, SetWebhookInput, StatusChangeInput, TenantParams, tenantIdFromPath } from "@/tenants/schemas";
import { prepareTenantStatus } from "@/tenants/status";
import { groupCommit, type PreparedWrite } from "@/storage/group-commit";
import { prepareRotateWebhookSecret, setWebhookUrl } from "@/tenants/webhook";
import type { HttpDeps } from "../deps";
import { guard, secured } from "../guard";
import { media } from "../media";
import { JSON_ONLY } from "../negotiate";
import { jsonRequestBody, jsonResponse, mediaRefusals, NO_QUERY, problemResponses } from "../openapi";
import { callMeta } from "../request-state";
import { ADMIN_PROBLEMS, TENANT_ADMIN_DESCRIPTIONS, TENANT_ADMIN_READ, TENANT_ADMIN_WRITE } from "../tenant-admin";

const KeyParams = TenantParams.extend({ keyId: pathId("API key id (keyId)") });
const IssueKeyQuery = z
  .object({
    label: z
      .string()
      .max(200)
      .trim()
      .superRefine((text, ctx) => {
        withoutControls(text, ctx);
      })
      .optional()
      .describe("What the key is for: at most 200 characters, no control characters"),
    role: z.enum(["compliance_analyst", "auditor"]).optional().describe("compliance_analyst (default) or auditor (read only)"),
  })
  .strict();

const NO_BODY_PROBLEM = "An unknown query parameter (the route takes none), or a body (the route takes none).";
const MEDIA = mediaRefusals("anything is read or written");
const WRITE_DESCRIPTIONS = {
  ...TENANT_ADMIN_DESCRIPTIONS,
  400: "Invalid or unknown body fields (each named in errors[]), an empty body, malformed JSON or an unknown query parameter.",
} as const;

/** Onboarding, key, quota and webhook management: bearer token with the admin role only (spec, Authentication rule 2). */
export function tenantRoutes(deps: HttpDeps) {
  /**
   * An admin write, taken through the group commit: it waits for a lock another process holds
   * without stopping the server. It is prepared (input checked, tenant found) before it is queued,
   * so a 400 or 404 is answered without waiting for that lock.
   */
  const adminWrite = <T>(write: PreparedWrite<T>): Promise<T> => groupCommit(deps.db).run(write);
  return new Elysia()
    .use(guard(deps))
    .use(media())
    .post(
      "/v1/tenants",
      async ({ admin, body, request, set }) => {
        // Validated by the verb, once (CreateTenantInput).
        const created = await onboardTenant(deps, body, callMeta(admin, request), deps.receiverLookup);
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
        produces: JSON_ONLY,
        jsonBody: "required",
        query: NoQuery,
        detail: {
          ...secured("Admin", {
            summary: "Onboard a tenant",
            description: `Creates the tenant and its first API key (role compliance_analyst). Returns 201 with the tenant, apiKey, apiKeyId and webhookSigningSecret (whsec_…, issued with or without a webhookUrl, so a receiver can be set up before its URL is registered) — both exactly once; they cannot be read again. 400 on an invalid or unknown field: name, slug, e-mail, list or webhook URL (including a host name that resolves to a private address the operator did not allow-list); 409 when the slug exists. Audited as tenant.create (the webhook URL without its query string) and api_key.issue with the token's sub. ${MEDIA} ${NO_QUERY}`,
            tags: ["Tenants (admin)"],
          }),
          requestBody: jsonRequestBody(CreateTenantInput),
          responses: {
            201: jsonResponse("The tenant with its first API key and signing secret, shown once", CREATED_TENANT_SCHEMA, {
              Location: { description: "/v1/tenants/{id} of the new tenant", schema: { type: "string" } },
            }),
            ...problemResponses([...ADMIN_PROBLEMS, 409, 413, 415], { ...WRITE_DESCRIPTIONS, 409: "A tenant with this slug exists." }),
          },
        },
      },
    )
    .get("/v1/tenants", () => ({ items: listTenants(deps.db) }), {
      admin: true,
      produces: JSON_ONLY,
      query: NoQuery,
      detail: {
        ...secured("Admin", { summary: "List tenants", description: `Every tenant, oldest first (not paged). ${NO_QUERY}`, tags: ["Tenants (admin)"] }),
        responses: { 200: jsonResponse("Every tenant", TENANT_LIST_SCHEMA), ...problemResponses(ADMIN_PROBLEMS, TENANT_ADMIN_DESCRIPTIONS) },
      },
    })
    .get("/v1/tenants/:id", ({ params }) => getTenant(deps.db, tenantIdFromPath(params.id)), {
      ...TENANT_ADMIN_READ,
      detail: {
        ...secured("Admin", { summary: "Read a tenant", description: `404 for an unknown tenant. ${NO_QUERY}`, tags: ["Tenants (admin)"] }),
        responses: { 200: jsonResponse("The tenant", TENANT_SCHEMA), ...problemResponses([...ADMIN_PROBLEMS, 404], TENANT_ADMIN_DESCRIPTIONS) },
      },
    })
    .get("/v1/tenants/:id/api-keys", ({ params }) => ({ items: listApiKeys(deps, tenantIdFromPath(params.id)) }), {
      ...TENANT_ADMIN_READ,
      detail: {
        ...secured("Admin", {
          summary: "List a tenant's API keys (never the secrets)",
          description: `Every key, revoked ones included, oldest first. 404 for an unknown tenant. ${NO_QUERY}`,
          tags: ["Tenants (admin)"],
        }),
        responses: { 200: jsonResponse("The tenant's keys", API_KEY_LIST_SCHEMA), ...problemResponses([...ADMIN_PROBLEMS, 404], TENANT_ADMIN_DESCRIPTIONS) },
      },
    })
    .post(
      "/v1/tenants/:id/api-keys",
      async ({ admin, params, query, request, set }) => {
        const issued = await adminWrite(
          prepareIssueApiKey(deps, { tenant: tenantIdFromPath(params.id), label: query.label ?? null, role: query.role }, callMeta(admin, request)),
        );
        set.status = 201;
        return { ...issued.key, apiKey: issued.apiKey };
      },
      {
        admin: true,
        produces: JSON_ONLY,
        params: TenantParams,
        query: IssueKeyQuery,
        noBody: "the query parameters label and role (?label=…&role=auditor)",
        detail: {
          ...secured("Admin", {
            summary: "Issue an API key",
            description:
              "Query label (optional) and role (compliance_analyst by default, or auditor for read-only); any other query parameter is 400, and so is a request with a body (400 naming body; the inputs are query parameters, never body fields). Returns 201 with keyId and apiKey; the key is shown once. Rotation: issue a new key, then revoke the old one. Audited as api_key.issue. A 406 (Accept allows no JSON type) is answered before the key is created.",
            tags: ["Tenants (admin)"],
          }),
          responses: {
            201: jsonResponse("The new key, shown once", ISSUED_API_KEY_SCHEMA),
            ...problemResponses([...ADMIN_PROBLEMS, 404], { ...TENANT_ADMIN_DESCRIPTIONS, 400: "A label over 200 characters or with a control character, an unknown role, an unknown query parameter or a body." }),
          },
        },
      },
    )
    .delete(
      "/v1/tenants/:id/api-keys/:keyId",
      ({ admin, params, request }) =>
        adminWrite(prepareRevokeApiKey(deps, { tenant: tenantIdFromPath(params.id), keyId: params.keyId }, callMeta(admin, request))),
      {
        admin: true,
        produces: JSON_ONLY,
        params: KeyParams,
        query: NoQuery,
        noBody: "nothing: the key is named by the path",
        detail: {
          ...secured("Admin", {
            summary: "Revoke an API key",
            description: `The key fails with 401 from the next request on. Returns the key's metadata with revokedAt. 404 for an unknown key or tenant; 409 when already revoked. Audited as api_key.revoke. It takes no body: a request with one is 400 naming body, and nothing is revoked. A 406 (Accept allows no JSON type) is answered before the key is revoked. ${NO_QUERY}`,
            tags: ["Tenants (admin)"],
          }),
          responses: {
            200: jsonResponse("The revoked key", API_KEY_SCHEMA),
            ...problemResponses([...ADMIN_PROBLEMS, 404, 409], {
              ...TENANT_ADMIN_DESCRIPTIONS,
              400: NO_BODY_PROBLEM,
              404: "No such tenant, or no such key of this tenant.",
              409: "The key was already revoked.",
            }),
          },
        },
      },
    )
    .put("/v1/tenants/:id/quota", ({ admin, params, body, request }) => adminWrite(prepareSetQuota(deps, tenantIdFromPath(params.id), body, callMeta(admin, request))), {
      ...TENANT_ADMIN_WRITE,
      detail: {
        ...secured("Admin", {
          summary: "Set or clear the monthly screening quota",
          description: `Body { monthlyScreeningQuota: integer ≥ 0, or null for unlimited }. Returns the tenant. The next screening call is checked against the new value. Audited as quota.set. ${MEDIA} ${NO_QUERY}`,
          tags: ["Tenants (admin)"],
        }),
        requestBody: jsonRequestBody(SetQuotaInput),
        responses: {
          200: jsonResponse("The tenant with its new quota", TENANT_SCHEMA),
          ...problemResponses([...ADMIN_PROBLEMS, 404, 413, 415], WRITE_DESCRIPTIONS),
        },
      },
    })
    .post(
      "/v1/tenants/:id/suspend",
      ({ admin, params, body, request }) => adminWrite(prepareTenantStatus(deps, tenantIdFromPath(params.id), "suspended", body, callMeta(admin, request))),
      statusChange({
        summary: "Suspend a tenant",
        description:
          "From the next request on, every credential of the tenant (its API keys, and bearer tokens naming it in tenant_id) is refused with 403 NO_USABLE_TENANT on every tenant-scoped route, reads and /v1/usage included (a request already being served, such as a bulk, completes); nothing of the tenant is deleted, and its keys are not revoked. Events queued before the suspension are still delivered to its webhook receiver. Returns the tenant with status suspended. 409 when it is already suspended (nothing is written). Audited as tenant.suspend with the reason, in the tenant's own chain. An extension of the spec's admin API (the spec has no suspension); the admin CLI's aml tenant suspend calls it with --remote.",
        returned: "The tenant, now suspended",
        conflict: "The tenant is already suspended.",
      }),
    )
    .post(
      "/v1/tenants/:id/resume",
      ({ admin, params, body, request }) => adminWrite(prepareTenantStatus(deps, tenantIdFromPath(params.id), "active", body, callMeta(admin, request))),
      statusChange({
        summary: "Resume a suspended tenant",
        description:
          "The tenant's unrevoked keys and tokens work again from the next request on; its quota and this month's usage are as they were. Returns the tenant with status active. 409 when it is not suspended (nothing is written). Audited as tenant.resume with the reason, in the tenant's own chain. An extension of the spec's admin API, like suspend.",
        returned: "The tenant, active again",
        conflict: "The tenant is not suspended.",
      }),
    )
    .put(
      "/v1/tenants/:id/webhook",
      async ({ admin, params, body, request }) => {
        const updated = await setWebhookUrl(deps, tenantIdFromPath(params.id), body, callMeta(admin, request), deps.receiverLookup);
        return { ...updated.tenant, webhookSigningSecret: updated.webhookSigningSecret };
      },
      {
        ...TENANT_ADMIN_WRITE,
        detail: {
          ...secured("Admin", {
            summary: "Set or clear the webhook URL",
            description: `Body { webhookUrl: string, or null to clear it }. The URL policy of onboarding applies: http or https, no credentials, no private or loopback host unless allow-listed, and a host name must not resolve to such an address (400 naming webhookUrl). Returns the tenant with webhookSigningSecret: a new whsec_ secret, shown this once, when the tenant had none (the demo tenant of aml serve --demo, or one onboarded without a URL by an earlier version); otherwise null and the secret is unchanged. Events already queued are delivered to the new URL; with the URL cleared no new events are queued. Audited as webhook_url.set with the previous and new URL, each as origin and path (a query string, which may carry a token, is not recorded). ${MEDIA} ${NO_QUERY}`,
            tags: ["Tenants (admin)"],
          }),
          requestBody: jsonRequestBody(SetWebhookInput),
          responses: {
            200: jsonResponse("The tenant, with a signing secret when one was issued", TENANT_WITH_SECRET_SCHEMA),
            ...problemResponses([...ADMIN_PROBLEMS, 404, 413, 415], {
              ...WRITE_DESCRIPTIONS,
              400: "An invalid or refused webhookUrl (named in errors[]), an unknown body field, an empty body, malformed JSON or an unknown query parameter.",
            }),
          },
        },
      },
    )
    .post(
      "/v1/tenants/:id/webhook/secret",
      async ({ admin, params, request }) => {
        const rotated = await adminWrite(prepareRotateWebhookSecret(deps, tenantIdFromPath(params.id), callMeta(admin, request)));
        return { ...rotated.tenant, webhookSigningSecret: rotated.webhookSigningSecret };
      },
      {
        ...TENANT_ADMIN_READ,
        noBody: "nothing: the tenant is named by the path",
        detail: {
          ...secured("Admin", {
            summary: "Rotate the webhook signing secret",
            description: `Replaces the signing secret with a new whsec_ secret and returns the tenant with webhookSigningSecret, exactly once; it cannot be read again. The old secret stops at once: every delivery attempt signed after this call, including retries of events queued before it, is signed with the new secret. Audited as webhook_secret.rotate (never the secret). It takes no body: a request with one is 400 naming body, and nothing is rotated. A 406 (Accept allows no JSON type) is answered before the secret is replaced, so the current secret stays valid. ${NO_QUERY}`,
            tags: ["Tenants (admin)"],
          }),
          responses: {
            200: jsonResponse("The tenant with its new signing secret, shown once", TENANT_WITH_SECRET_SCHEMA),
            ...problemResponses([...ADMIN_PROBLEMS, 404], { ...TENANT_ADMIN_DESCRIPTIONS, 400: NO_BODY_PROBLEM }),
          },
        },
      },
    );
}

/** The options of POST /v1/tenants/{id}/suspend and /resume: one body ({reason}), one response, one 409. */
function statusChange(doc: { summary: string; description: string; returned: string; conflict: string }) {
  return {
    ...TENANT_ADMIN_WRITE,
    detail: {
      ...secured("Admin", {
        summary: doc.summary,
        description: `Body { reason: string, 1-500 characters, no control characters }. ${doc.description} ${MEDIA} ${NO_QUERY}`,
        tags: ["Tenants (admin)"],
      }),
      requestBody: jsonRequestBody(StatusChangeInput),
      responses: {
        200: jsonResponse(doc.returned, TENANT_SCHEMA),
        ...problemResponses([...ADMIN_PROBLEMS, 404, 409, 413, 415], { ...WRITE_DESCRIPTIONS, 409: doc.conflict }),
      },
    },
  };
}
