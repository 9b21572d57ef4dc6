import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startIndex } from "@/matching/index";
import { watchlistExtension } from "@/watchlists/extension";
import { runCli } from "../helpers/cli";
import { makeTenant } from "../helpers/tenants";
import { startTestServer, type TestServer } from "../helpers/server";

const SHARED = join(import.meta.dir, "..", "..", "..", "shared", "watchlists");

let server: TestServer;
let apiKey: string;

async function version(): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.url}/v1/lists/version`, { headers: { "x-api-key": apiKey } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  server = await startTestServer({ extensions: [watchlistExtension(startIndex, { pollMs: 200 })] });
  apiKey = makeTenant(server.ctx).apiKey;
});
afterAll(() => server.close());

describe("serving lists", () => {
  test("with nothing imported and no demo list, /readyz reports the watchlists check not ready", async () => {
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    const body = (await ready.json()) as { checks: Array<{ name: string; ready: boolean }> };
    expect(body.checks.find((c) => c.name === "watchlists")?.ready).toBe(false);
    expect(body.checks.find((c) => c.name === "storage")?.ready).toBe(true);
    expect((await version()).status).toBe(503);
  });

  test("a list imported with the CLI while the server runs is picked up within seconds, no restart", async () => {
    const result = await runCli(["lists", "import", join(SHARED, "un/consolidated.xml")], { dataDir: server.dataDir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("imported");
    const deadline = Date.now() + 10_000;
    let current = await version();
    while (current.status !== 200 && Date.now() < deadline) {
      await Bun.sleep(100);
      current = await version();
    }
    expect(current.status).toBe(200);
    const sources = current.body.sources as Array<Record<string, unknown>>;
    expect(sources.map((s) => s.source)).toEqual(["UN"]);
    expect(sources[0]!.entityCount).toBe(1003);
    expect(sources[0]!.publishedAt).toBe("2026-02-27T00:00:09.554Z");
    expect(typeof sources[0]!.ageDays).toBe("number");
    expect(current.body.isDemo).toBe(false);
    expect(current.body.notice).toBeNull();
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  test("/v1/lists/version reads are not charged against the quota", async () => {
    const before = (await (await fetch(`${server.url}/v1/usage`, { headers: { "x-api-key": apiKey } })).json()) as { used: number };
    for (let i = 0; i < 3; i++) expect((await version()).status).toBe(200);
    const after = (await (await fetch(`${server.url}/v1/usage`, { headers: { "x-api-key": apiKey } })).json()) as { used: number };
    expect(after.used).toBe(before.used);
  });

  test("the admin upload route refuses API keys (bearer admin only)", async () => {
    const form = new FormData();
    form.append("file", new Blob(["<x/>"]), "x.xml");
    const response = await fetch(`${server.url}/v1/lists/import`, { method: "POST", headers: { "x-api-key": apiKey }, body: form });
    expect(response.status).toBe(403);
  });
});
