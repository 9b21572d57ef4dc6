import { Elysia } from "elysia";
import { z } from "zod";
import type { HttpDeps } from "../deps";
import { BODY_CORRELATION_ID, jsonResponse, LATE_NOT_ACCEPTABLE_PROBLEM, problemResponses, schemaComponent } from "../openapi";

/** Response shapes for the OpenAPI description only (test/http/reference.test.ts checks real answers against them). */
export const LivenessResponse = z
  .object({
    status: z.literal("ok").describe("Always ok: the process answers HTTP"),
    correlationId: BODY_CORRELATION_ID,
  })
  .describe("The process is up. Says nothing about storage or watchlists (see /readyz).");

export const ReadinessResponse = z
  .object({
    status: z.enum(["ready", "not_ready"]).describe("ready (HTTP 200) when every check is ready, else not_ready (HTTP 503)"),
    checks: z
      .array(
        z.object({
          name: z
            .string()
            .describe("The subsystem checked: storage and disk always; under `aml serve` also watchlists, webhooks and screening. disk is not ready with less than 64 MiB free on the data folder's file system"),
          ready: z.boolean().describe("Whether this subsystem can serve now"),
          detail: z.string().describe('Its state for a human, e.g. "migrated", "migrating", "snapshot <id> loaded", or why no watchlist is served (none imported, a failed load, still loading)'),
        }),
      )
      .describe("One entry per subsystem, storage first, then disk"),
    correlationId: BODY_CORRELATION_ID,
  })
  .describe("Whether the appliance can screen, with the check of each subsystem. The same shape with 200 and 503.");

const LIVENESS_SCHEMA = schemaComponent("Liveness", LivenessResponse);
const READINESS_SCHEMA = schemaComponent("Readiness", ReadinessResponse);

/** Liveness and readiness for the service manager and load balancers; no credential. */
export function healthRoutes(deps: HttpDeps) {
  return new Elysia()
    .get("/healthz", () => ({ status: "ok" }), {
      detail: {
        summary: "Liveness: the process is up",
        description:
          "200 while the process answers HTTP, from the moment it listens (storage may still be migrating). Says nothing about storage, the disk or watchlists: see /readyz. No credential; for a service manager's liveness probe.",
        tags: ["Health"],
        responses: {
          200: jsonResponse("The process is up (answered while storage is still migrating too)", LIVENESS_SCHEMA),
          ...problemResponses([406], { 406: LATE_NOT_ACCEPTABLE_PROBLEM }),
        },
      },
    })
    .get(
      "/readyz",
      ({ set }) => {
        const checks = deps.readiness.checks();
        const ready = checks.every((c) => c.ready);
        set.status = ready ? 200 : 503;
        return { status: ready ? "ready" : "not_ready", checks };
      },
      {
        detail: {
          summary: "Readiness: storage migrated and a watchlist version loaded",
          description:
            "503 with the failing checks until the appliance can screen, including while no watchlist was ever imported (the watchlists check's detail then says to run `aml lists import`; `aml serve --demo` loads the FICTIONAL demo list instead).",
          tags: ["Health"],
          responses: {
            200: jsonResponse("Ready: every check passes (status ready)", READINESS_SCHEMA),
            // Not a problem+json: a load balancer reads the same body either way, with the failing checks.
            503: jsonResponse("Not ready: at least one check fails (status not_ready), e.g. storage still migrating or no watchlist snapshot loaded yet", READINESS_SCHEMA),
            ...problemResponses([406], { 406: LATE_NOT_ACCEPTABLE_PROBLEM }),
          },
        },
      },
    );
}
