import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { Writable } from "node:stream";
import { loadConfig } from "@/config";
import { createLogger } from "@/lib/logger";
import { startServer } from "@/server";
import { call } from "../helpers/api";
import { tempDataDir } from "../helpers/server";
import { makeTenant } from "../helpers/tenants";

/** The access log names who made a call (never with a secret), so a refused one can be traced to its credential. */
const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(JSON.parse(line));
    done();
  },
});
const dataDir = tempDataDir();
let server: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  const config = loadConfig({ env: {}, flags: { dataDir, host: "127.0.0.1", port: 0, logLevel: "info" } });
  server = await startServer(config, { log: createLogger("info", sink), bearer: null });
});
afterAll(async () => {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("a 403 on an admin route logs the API key's id, tenant and role; a 401 logs no caller", async () => {
  const tenant = makeTenant(server.ctx);
  const refused = await call(server.url, "/v1/tenants", { method: "POST", key: tenant.apiKey, headers: { "content-type": "application/json" }, body: "{}" });
  expect(refused.status).toBe(403);
  const anonymous = await call(server.url, "/v1/usage", {});
  expect(anonymous.status).toBe(401);
  await Bun.sleep(50);
  const entryOf = (correlationId: string | null) => lines.find((l) => l.msg === "request" && l.correlationId === correlationId);
  expect(entryOf(refused.headers.get("x-correlation-id"))).toMatchObject({
    status: 403,
    path: "/v1/tenants",
    actor: `api_key:${tenant.apiKeyId}`,
    roles: ["compliance_analyst"],
    tenantId: tenant.tenant.id,
  });
  const anonymousEntry = entryOf(anonymous.headers.get("x-correlation-id"));
  expect(anonymousEntry?.status).toBe(401);
  expect(anonymousEntry?.actor).toBeUndefined();
  expect(JSON.stringify(lines)).not.toContain(tenant.apiKey);
});
