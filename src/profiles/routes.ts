import { Elysia } from "elysia";
import { tenantIdFromPath } from "@/tenants/schemas";
import { z } from "zod";
import type { HttpDeps } from "@/http/deps";
import { guard, secured } from "@/http/guard";
import { media } from "@/http/media";
import { BODY_CORRELATION_ID, jsonRequestBody, jsonResponse, problemResponses, schemaComponent } from "@/http/openapi";
import { callMeta } from "@/http/request-state";
import { ADMIN_PROBLEMS, TENANT_ADMIN_DESCRIPTIONS, TENANT_ADMIN_READ, TENANT_ADMIN_WRITE } from "@/http/tenant-admin";
import { RiskProfileOptions } from "@/matching/options";
import { groupCommit } from "@/storage/group-commit";
import { getRiskProfile, prepareSetRiskProfile } from "./store";

/** Response shape for the OpenAPI description only (test/http/admin-media.test.ts checks real answers against it). */
export const RiskProfileResponse = z
  .object({
    tenantId: z.uuid(),
    options: RiskProfileOptions.describe("Every option, defaults filled in"),
    isDefault: z.boolean().describe("true while no profile was ever set (the documented defaults apply)"),
    updatedAt: z.string().nullable().describe("ISO 8601 date-time (UTC); null while isDefault"),
    updatedBy: z.string().nullable().describe("actorType:actorId of the last PUT; null while isDefault"),
    correlationId: BODY_CORRELATION_ID,
  })
  .describe("A tenant's risk profile: the matching options its screens start from.");
const RISK_PROFILE_SCHEMA = schemaComponent("RiskProfile", RiskProfileResponse);

const PROFILE_SHAPE =
  "Response { tenantId, options (every field, defaults filled in), isDefault (true while no profile was ever set), updatedAt, updatedBy }.";

/** GET/PUT /v1/tenants/{id}/risk-profile: bearer token with the admin role only. */
export function profileRoutes(deps: HttpDeps) {
  return new Elysia()
    .use(guard(deps))
    .use(media())
    .get("/v1/tenants/:id/risk-profile", ({ params }) => getRiskProfile(deps.db, tenantIdFromPath(params.id)), {
      ...TENANT_ADMIN_READ,
      detail: {
        ...secured("Admin", {
          summary: "Read a tenant's risk profile (matching options)",
          description: `${PROFILE_SHAPE} 404 for an unknown tenant. No query parameters.`,
          tags: ["Risk profiles (admin)"],
        }),
        responses: { 200: jsonResponse("The risk profile", RISK_PROFILE_SCHEMA), ...problemResponses([...ADMIN_PROBLEMS, 404], TENANT_ADMIN_DESCRIPTIONS) },
      },
    })
    .put(
      "/v1/tenants/:id/risk-profile",
      // Validated by the verb, once (RiskProfileOptions): the route has no body schema, so a non-JSON body is 415, not 400.
      ({ admin, params, body, request }) =>
        // Through the group commit: it waits for a lock another process holds without stopping the server.
        // Prepared first: a bad option or an unknown tenant is answered without waiting for that lock.
        groupCommit(deps.db).run(prepareSetRiskProfile(deps, tenantIdFromPath(params.id), body, callMeta(admin, request))),
      {
        ...TENANT_ADMIN_WRITE,
        detail: {
          ...secured("Admin", {
            summary: "Replace a tenant's risk profile",
            description: `Body: the options; omitted fields take their documented defaults (replace, not merge). 400 names each field out of range or unknown; 404 for an unknown tenant. Screens started after the response use it; rescreens keep their original options. Audited as profile.set. A 406 (Accept allows no JSON type) or 415 (a Content-Type other than application/json, text/json or application/*+json) is answered before anything is written. No query parameters. ${PROFILE_SHAPE}`,
            tags: ["Risk profiles (admin)"],
          }),
          requestBody: jsonRequestBody(RiskProfileOptions),
          responses: {
            200: jsonResponse("The new risk profile", RISK_PROFILE_SCHEMA),
            ...problemResponses([...ADMIN_PROBLEMS, 404, 413, 415], {
              ...TENANT_ADMIN_DESCRIPTIONS,
              400: "Options out of range or unknown (each named in errors[]), an empty body, malformed JSON or an unknown query parameter.",
            }),
          },
        },
      },
    );
}
