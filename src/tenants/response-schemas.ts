import { z } from "zod";
import { API_KEY_ROLES } from "@/auth/roles";
import { BODY_CORRELATION_ID as correlationId, instant, instantOrNull, schemaComponent } from "@/http/openapi";
import { SOURCE_LISTS } from "@/watchlists/entity";
import { SLUG_RE } from "./schemas";

/**
 * Response shapes of the admin tenant routes, for the OpenAPI description only: responses are not
 * validated at run time (test/http/admin-media.test.ts checks real answers against them).
 */

export const TenantResponse = z
  .object({
    id: z.uuid(),
    name: z.string(),
    slug: z.string().regex(SLUG_RE),
    contactEmail: z.string(),
    plan: z.string(),
    enabledLists: z.array(z.enum(SOURCE_LISTS)).describe("The watchlists the tenant may screen against"),
    webhookUrl: z.string().nullable().describe("The receiver URL; null when no events are queued"),
    monthlyScreeningQuota: z.number().int().min(0).nullable().describe("The monthly quota; null = unlimited"),
    status: z.enum(["active", "suspended"]),
    createdAt: instant("When it was onboarded"),
    updatedAt: instant("When it last changed"),
  })
  .describe("A tenant. Never carries an API key or the webhook signing secret.");

const webhookSigningSecret = z.string().regex(/^whsec_/);

export const CreatedTenantResponse = TenantResponse.extend({
  apiKey: z.string().regex(/^aml_live_/).describe("The first API key (role compliance_analyst), shown this once"),
  apiKeyId: z.uuid(),
  webhookSigningSecret: webhookSigningSecret.describe("whsec_ signing secret, shown this once; issued with or without a webhookUrl, so a receiver can be set up before its URL is registered"),
  correlationId,
}).describe("The onboarded tenant with its first API key and its webhook signing secret: both shown once.");

export const TenantWithSecretResponse = TenantResponse.extend({
  webhookSigningSecret: webhookSigningSecret.nullable().describe("A new whsec_ secret, shown this once; null when none was issued (the secret is unchanged)"),
  correlationId,
}).describe("The tenant and, when one was issued, its new webhook signing secret.");

export const ApiKeyResponse = z
  .object({
    keyId: z.uuid(),
    tenantId: z.uuid(),
    label: z.string().nullable(),
    role: z.enum(API_KEY_ROLES),
    hint: z.string().describe("The key's visible start (aml_live_xxxx…), enough to tell keys apart; never the secret"),
    createdAt: instant("When it was issued"),
    createdBy: z.string().describe("actorType:actorId of who issued it"),
    revokedAt: instantOrNull("When it was revoked; null while it is valid"),
    revokedBy: z.string().nullable(),
  })
  .describe("An API key's metadata; never the key itself.");

export const IssuedApiKeyResponse = ApiKeyResponse.extend({
  apiKey: z.string().regex(/^aml_live_/).describe("The key, shown this once"),
  correlationId,
}).describe("The new key's metadata and the key itself, shown once.");

export const TENANT_SCHEMA = schemaComponent("Tenant", TenantResponse.extend({ correlationId }));
export const TENANT_LIST_SCHEMA = schemaComponent("TenantList", z.object({ items: z.array(TenantResponse), correlationId }).describe("Every tenant, oldest first."));
export const CREATED_TENANT_SCHEMA = schemaComponent("CreatedTenant", CreatedTenantResponse);
export const TENANT_WITH_SECRET_SCHEMA = schemaComponent("TenantWithWebhookSecret", TenantWithSecretResponse);
export const API_KEY_SCHEMA = schemaComponent("ApiKey", ApiKeyResponse.extend({ correlationId }));
export const API_KEY_LIST_SCHEMA = schemaComponent(
  "ApiKeyList",
  z.object({ items: z.array(ApiKeyResponse), correlationId }).describe("The tenant's keys, revoked ones included, oldest first."),
);
export const ISSUED_API_KEY_SCHEMA = schemaComponent("IssuedApiKey", IssuedApiKeyResponse);
