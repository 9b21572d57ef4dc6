import { type AnyElysia, Elysia } from "elysia";
import { z } from "zod";
import { BODY_CORRELATION_ID, jsonResponse, LATE_NOT_ACCEPTABLE_PROBLEM, problemResponses, schemaComponent } from "../openapi";
import { policyTable, ROUTE_CREDENTIALS, ROUTE_POLICIES } from "../policy-table";

/** Response shape for the OpenAPI description only (test/http/reference.test.ts checks a real answer against it). */
export const PolicyTableResponse = z
  .object({
    items: z.array(
      z.object({
        method: z.string().describe("HTTP method, upper case (GET, POST, PUT, DELETE)"),
        path: z.string().describe("OpenAPI path template, e.g. /v1/tenants/{id}"),
        policy: z.enum(ROUTE_POLICIES).describe(
          "What the route requires: Screening.Read (roles compliance_analyst, admin, auditor), Screening.Write (compliance_analyst, admin), Admin (admin) or public (no credential)",
        ),
        credentials: z.enum(ROUTE_CREDENTIALS).describe(
          "What may call it: a tenant API key or an OIDC bearer token, a bearer token only (Admin routes: an API key gets 403), or none (public)",
        ),
      }),
    ),
    correlationId: BODY_CORRELATION_ID,
  })
  .describe("Every documented endpoint with the policy its guard enforces, sorted by path, then method.");

const POLICY_TABLE_SCHEMA = schemaComponent("PolicyTable", PolicyTableResponse);

/**
 * GET /docs/policies: the policy each endpoint enforces, derived from the running app's routes
 * (so it cannot drift from the guards). Public: it names policies, never data.
 * `app` is read lazily because the routes registered after this one must be listed too.
 */
export function policyRoutes(app: () => AnyElysia) {
  return new Elysia().get("/docs/policies", () => ({ items: policyTable(app()) }), {
    detail: {
      summary: "Policy required by each endpoint",
      description:
        "Sorted by path, then method. policy is Screening.Read (roles compliance_analyst, admin, auditor), Screening.Write (compliance_analyst, admin), Admin (admin) or public; credentials is `api key or bearer`, `bearer only` (admin routes: an API key gets 403) or `none`.",
      tags: ["Reference"],
      responses: {
        200: jsonResponse("The policy table (JSON; docs/policies.md is the same table as Markdown)", POLICY_TABLE_SCHEMA),
        ...problemResponses([406], { 406: LATE_NOT_ACCEPTABLE_PROBLEM }),
      },
    },
  });
}
