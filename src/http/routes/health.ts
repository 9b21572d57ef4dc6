import { Elysia } from "elysia";
import type { HttpDeps } from "../deps";

/** Liveness and readiness for the service manager and load balancers; no credential. */
export function healthRoutes(deps: HttpDeps) {
  return new Elysia()
    .get("/healthz", () => ({ status: "ok" }), {
      detail: { summary: "Liveness: the process is up", tags: ["Health"] },
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
          summary: "Readiness: storage migrated and, once lists exist, a watchlist version loaded",
          description: "503 with the failing checks until the appliance can screen.",
          tags: ["Health"],
        },
      },
    );
}
