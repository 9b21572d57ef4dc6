import { Elysia } from "elysia";
import { getUsage } from "@/usage/quota";
import type { HttpDeps } from "../deps";
import { guard, secured } from "../guard";

export function usageRoutes(deps: HttpDeps) {
  return new Elysia().use(guard(deps)).get("/v1/usage", ({ caller }) => getUsage(deps.db, caller.tenantId, deps.clock.now()), {
    tenant: "Screening.Read",
    detail: secured("Screening.Read", {
      summary: "Current UTC calendar month's screening usage",
      description:
        "used: screens charged this UTC calendar month; limit: the monthly quota or null (unlimited, the default); remaining: limit − used, or 9007199254740991 when unlimited; unlimited: true when no quota is set. Any tenant credential may call it; it keeps working at the cap.",
      tags: ["Usage"],
    }),
  });
}
