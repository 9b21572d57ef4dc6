import { TenantParams } from "@/tenants/schemas";
import { NoQuery } from "./empty-input";
import { JSON_ONLY } from "./negotiate";
import { NO_QUERY_PROBLEM, type ProblemStatus } from "./openapi";

/**
 * What the admin routes on /v1/tenants/{id}/… share (tenants.ts, profiles/routes.ts): the options of
 * one that reads, or replaces a setting from a JSON body, the statuses every admin route may answer
 * (a route adds its own), and their texts.
 */
export const TENANT_ADMIN_READ = { admin: true, produces: JSON_ONLY, params: TenantParams, query: NoQuery } as const;
export const TENANT_ADMIN_WRITE = { ...TENANT_ADMIN_READ, jsonBody: "required" } as const;

export const ADMIN_PROBLEMS: readonly ProblemStatus[] = [400, 401, 403, 406];

export const TENANT_ADMIN_DESCRIPTIONS = {
  400: NO_QUERY_PROBLEM,
  403: "The credential is an API key, or a bearer token without the admin role.",
  404: "No tenant with this id (a non-UUID id included).",
} as const;
