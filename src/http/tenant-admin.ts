import { TenantParams } from "@/tenants/schemas";
import { NoQuery } from "./empty-input";
import { JSON_ONLY } from "./negotiate";
import { NO_QUERY_PROBLEM } from "./openapi";

/**
 * What the admin routes on /v1/tenants/{id}/… share (tenants.ts, profiles/routes.ts): the options of
 * one that replaces a setting from a JSON body, and the texts of the problems every such route answers.
 */
export const TENANT_ADMIN_WRITE = { admin: true, produces: JSON_ONLY, jsonBody: "required", params: TenantParams, query: NoQuery } as const;

export const TENANT_ADMIN_DESCRIPTIONS = {
  400: NO_QUERY_PROBLEM,
  403: "The credential is an API key, or a bearer token without the admin role.",
  404: "No tenant with this id (a non-UUID id included).",
} as const;
