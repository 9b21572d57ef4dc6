import { afterAll, beforeAll, expect, test } from "bun:test";
import { serverExtensions } from "@/cli/extensions";
import { loadConfig } from "@/config";
import { startTestServer, type TestServer } from "../helpers/server";
import { makeTenant } from "../helpers/tenants";
import { call, json } from "../helpers/api";

let server: TestServer;
let key: string;
beforeAll(async () => {
  // Exactly what `aml serve` runs, on an empty data folder: the demo list is seeded on first start.
  server = await startTestServer({ extensions: await serverExtensions(loadConfig({ env: {} })) });
  key = makeTenant(server.ctx).apiKey;
});
afterAll(() => server.close());

const check = async (fullName: string) =>
  json<{ decision: string; matches: Array<{ primaryName: string }> }>(
    await call(server.url, "/v1/screenings/check", { method: "POST", key, headers: { "content-type": "application/json" }, body: JSON.stringify({ fullName }) }),
  );

test("aml serve's extensions screen against the fictional demo list out of the box", async () => {
  const ready = await call(server.url, "/readyz");
  expect(ready.status).toBe(200);
  const hit = await check("Boris Quillfeather");
  expect(["Match", "Review"]).toContain(hit.decision);
  expect(hit.matches[0]?.primaryName.toUpperCase()).toContain("QUILLFEATHER");
  expect((await check("Penelope Whitcombe-Arden")).decision).toBe("Clear");
});
