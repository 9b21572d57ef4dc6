import { type AnyElysia, Elysia } from "elysia";
import { policyTable } from "../policy-table";

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
    },
  });
}
