import { Elysia } from "elysia";
import { NoQuery } from "@/http/empty-input";
import { z } from "zod";
import { UNLIMITED_REMAINING, usageReport } from "@/usage/quota";
import type { HttpDeps } from "../deps";
import { guard, secured } from "../guard";
import { media } from "../media";
import { JSON_ONLY } from "../negotiate";
import { BODY_CORRELATION_ID, instant, jsonResponse, NO_QUERY_PROBLEM, problemResponses, schemaComponent } from "../openapi";

/** The body of GET /v1/usage (exported for the tests that check real answers against it). */
export const UsageBody = z
    .object({
      used: z.number().int().min(0).describe("Screens charged this UTC calendar month"),
      limit: z.number().int().min(0).nullable().describe("The monthly quota; null = unlimited (the default)"),
      remaining: z.number().int().min(0).describe(`limit − used, or ${UNLIMITED_REMAINING} when unlimited`),
      unlimited: z.boolean().describe("true when no quota is set"),
      period: z
        .string()
        .regex(/^\d{4}-\d{2}$/)
        .describe('The UTC calendar month counted, "YYYY-MM" (the same period a 429 QUOTA_EXCEEDED names)'),
      resetsAt: instant("When the counter starts again from 0: the start of the next UTC calendar month"),
      correlationId: BODY_CORRELATION_ID,
    })
    .describe("The tenant's screening usage for the current UTC calendar month.");
const UsageResponse = schemaComponent("Usage", UsageBody);

export function usageRoutes(deps: HttpDeps) {
  return new Elysia()
    .use(guard(deps))
    .use(media())
    .get("/v1/usage", ({ caller }) => usageReport(deps.db, caller.tenantId, deps.clock.now()), {
      tenant: "Screening.Read",
      produces: JSON_ONLY,
      query: NoQuery,
      detail: {
        ...secured("Screening.Read", {
          summary: "Current UTC calendar month's screening usage",
          description:
            "used: screens charged this UTC calendar month; limit: the monthly quota or null (unlimited, the default); remaining: limit − used, or 9007199254740991 when unlimited; unlimited: true when no quota is set; period: the month counted (\"YYYY-MM\", UTC); resetsAt: when the counter starts again from 0. Any tenant credential whose role is one of the appliance's (an API key always; a token with compliance_analyst, auditor or admin) may call it, as the spec's Screening.Read policy says; it keeps working at the cap. Takes no query parameters (there is no month selector).",
          tags: ["Usage"],
        }),
        responses: {
          200: jsonResponse("This month's usage", UsageResponse),
          ...problemResponses([400, 401, 403, 406], { 400: NO_QUERY_PROBLEM }),
        },
      },
    });
}
