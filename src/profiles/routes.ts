import { Elysia } from "elysia";
import { z } from "zod";
import { notFound } from "@/errors";
import type { HttpDeps } from "@/http/deps";
import { guard, secured } from "@/http/guard";
import { requestState } from "@/http/request-state";
import { isUuid } from "@/lib/ids";
import { RiskProfileOptions } from "@/matching/options";
import { getRiskProfile, setRiskProfile } from "./store";

const TenantParams = z.object({ id: z.string().min(1).max(100).describe("Tenant id (UUID)") }).strict();

/** Admin routes address tenants by UUID; a non-UUID id is simply not found. */
function tenantId(id: string): string {
  if (!isUuid(id)) throw notFound(`Tenant ${id}`);
  return id;
}

const PROFILE_SHAPE =
  "Response { tenantId, options (every field, defaults filled in), isDefault (true while no profile was ever set), updatedAt, updatedBy }.";

/** GET/PUT /v1/tenants/{id}/risk-profile: bearer token with the admin role only. */
export function profileRoutes(deps: HttpDeps) {
  return new Elysia()
    .use(guard(deps))
    .get("/v1/tenants/:id/risk-profile", ({ params }) => getRiskProfile(deps.db, tenantId(params.id)), {
      admin: true,
      params: TenantParams,
      detail: secured("Admin", {
        summary: "Read a tenant's risk profile (matching options)",
        description: `${PROFILE_SHAPE} 404 for an unknown tenant.`,
        tags: ["Risk profiles (admin)"],
      }),
    })
    .put(
      "/v1/tenants/:id/risk-profile",
      ({ admin, params, body, request }) =>
        setRiskProfile(deps, tenantId(params.id), body, { actor: admin.actor, correlationId: requestState(request).correlationId }),
      {
        admin: true,
        params: TenantParams,
        body: RiskProfileOptions,
        // Names the JSON parser so the OpenAPI document lists the body (the app's own parser is a function the plugin cannot describe).
        parse: "json",
        detail: secured("Admin", {
          summary: "Replace a tenant's risk profile",
          description: `Body: the options; omitted fields take their documented defaults (replace, not merge). 400 names each field out of range; 404 for an unknown tenant. Screens started after the response use it; rescreens keep their original options. Audited as profile.set. ${PROFILE_SHAPE}`,
          tags: ["Risk profiles (admin)"],
        }),
      },
    );
}
