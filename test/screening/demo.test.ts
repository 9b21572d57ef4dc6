import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { serverExtensions } from "@/cli/extensions";
import { createLogger } from "@/lib/logger";
import { loadConfig } from "@/config";
import { rmSync } from "node:fs";
import { runCli, spawnServe } from "../helpers/cli";
import { sharedPath } from "../unit/watchlists/shared-files";
import { startTestServer, type TestServer, tempDataDir } from "../helpers/server";
import { makeTenant } from "../helpers/tenants";
import { importListFiles } from "@/watchlists/import";
import { demoListFiles } from "@/watchlists/demo";
import { NO_LIST_IMPORTED } from "@/watchlists/runtime";
import { call, expectProblem, json } from "../helpers/api";
import { insertScreeningCopy } from "../helpers/screenings";
import { waitFor } from "../helpers/wait";

let server: TestServer;
let key: string;
beforeAll(async () => {
  // Exactly what `aml serve --demo` runs, on an empty data folder: the demo list is seeded on first start.
  server = await startTestServer({ extensions: await serverExtensions(loadConfig({ env: {} }), { demo: true }) });
  key = makeTenant(server.ctx).apiKey;
});
afterAll(() => server.close());

const post = (fullName: string, url = server.url, apiKey = key) =>
  call(url, "/v1/screenings/check", { method: "POST", key: apiKey, headers: { "content-type": "application/json" }, body: JSON.stringify({ fullName }) });

const check = async (fullName: string, url = server.url, apiKey = key) =>
  json<{ id: string; decision: string; matches: Array<{ primaryName: string }>; listVersions: { isDemo: boolean; sources: Array<{ isDemo: boolean }> } }>(
    await post(fullName, url, apiKey),
  );

test("aml serve --demo's extensions screen against the fictional demo list out of the box", async () => {
  const ready = await call(server.url, "/readyz");
  expect(ready.status).toBe(200);
  const hit = await check("Boris Quillfeather");
  expect(["Match", "Review"]).toContain(hit.decision);
  // Every screening that read the demo list carries the mark, as stored and as read back.
  expect(hit.listVersions.isDemo).toBe(true);
  expect(hit.listVersions.sources.every((s) => s.isDemo)).toBe(true);
  const stored = json<{ listVersions: { isDemo: boolean } }>(await call(server.url, `/v1/screenings/${hit.id}`, { key }));
  expect(stored.listVersions.isDemo).toBe(true);
  expect(hit.matches[0]?.primaryName.toUpperCase()).toContain("QUILLFEATHER");
  expect((await check("Penelope Whitcombe-Arden")).decision).toBe("Clear");
});

describe("aml serve without --demo on a folder that never imported a list", () => {
  let bare: TestServer;
  let bareKey: string;
  /** The server's log lines at warn and above. */
  const logged: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    const log = createLogger("warn", { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) });
    bare = await startTestServer({ extensions: await serverExtensions(loadConfig({ env: {} })), log });
    bareKey = makeTenant(bare.ctx).apiKey;
  });
  afterAll(() => bare.close());

  test("screens nothing: /readyz, a check and the list version are 503 saying to import the official lists", async () => {
    const ready = await call(bare.url, "/readyz");
    expect(ready.status).toBe(503);
    const watchlists = json<{ checks: Array<{ name: string; ready: boolean; detail: string }> }>(ready).checks.find((c) => c.name === "watchlists");
    expect(watchlists).toEqual({ name: "watchlists", ready: false, detail: NO_LIST_IMPORTED });
    const res = await post("Boris Quillfeather", bare.url, bareKey);
    expect(expectProblem(res, 503, "NOT_READY").detail).toBe(NO_LIST_IMPORTED);
    expect(expectProblem(await call(bare.url, "/v1/lists/version", { key: bareKey }), 503, "NOT_READY").detail).toContain("aml lists import");
    expect(json<{ used: number }>(await call(bare.url, "/v1/usage", { key: bareKey })).used).toBe(0);
    // An expected refusal is logged as a warning with its code, not as an error with a stack trace.
    const refusals = logged.filter((line) => line.msg === "request not served");
    expect(refusals.length).toBeGreaterThanOrEqual(2);
    expect(refusals[0]).toMatchObject({ level: 40, code: "NOT_READY", status: 503, detail: NO_LIST_IMPORTED });
    expect(refusals[0]).not.toHaveProperty("err");
    expect(logged.filter((line) => line.msg === "request failed")).toEqual([]);
  });

  test("serves the first import without a restart", async () => {
    await importListFiles(bare.ctx.db, demoListFiles(), { actor: { type: "system", id: "test" } });
    await waitFor(async () => (await call(bare.url, "/readyz")).status === 200, 15_000, {
      message: "the imported list was not picked up",
      intervalMs: 100,
    });
    const hit = await check("Boris Quillfeather", bare.url, bareKey);
    expect(["Match", "Review"]).toContain(hit.decision);
  });
});

test("a screening stored before sources carried isDemo reads the mark from its list versions", async () => {
  const hit = await check("Boris Quillfeather");
  const sqlite = server.ctx.db.sqlite;
  const stored = sqlite.query<{ list_versions: string }, [string]>("SELECT list_versions FROM screenings WHERE id = ?").get(hit.id);
  // The sources as they were written before the field existed.
  const withoutMark = JSON.stringify((JSON.parse(stored?.list_versions ?? "[]") as Array<Record<string, unknown>>).map(({ isDemo: _, ...s }) => s));
  expect(withoutMark).not.toContain("isDemo");
  const oldId = insertScreeningCopy(server.ctx.db, hit.id, { list_versions: withoutMark });
  const old = json<{ listVersions: { isDemo: boolean; sources: Array<{ isDemo: boolean }> } }>(await call(server.url, `/v1/screenings/${oldId}`, { key }));
  expect(old.listVersions.isDemo).toBe(true);
  expect(old.listVersions.sources.every((s) => s.isDemo)).toBe(true);
});

test("aml serve --demo on a folder whose demo tenant was suspended says so, and does not resume it", async () => {
  const dataDir = tempDataDir("aml-demo-stopped-");
  try {
    const first = await spawnServe(dataDir, {}, ["--demo"]);
    await first.stop();
    expect(first.banner).toContain("demo tenant API key (shown once)");
    expect(first.banner).not.toContain("suspended");
    expect((await runCli(["tenant", "suspend", "demo", "--reason", "closed for the audit"], { dataDir })).code).toBe(0);
    // The history lists the demo list's versions beside an official import's, each saying what it is.
    expect((await runCli(["lists", "import", sharedPath("un/consolidated.xml")], { dataDir, timeoutMs: 60_000 })).code).toBe(0);
    const history = (await runCli(["lists", "status", "--history"], { dataDir })).stdout.split("\n");
    const un = history.filter((line) => /^(yes|no)\s+UN /.test(line));
    expect(un.length).toBe(2);
    // The official edition serves; the demo's version it replaced says it no longer does.
    expect(un.filter((line) => line.includes("(FICTIONAL demo)"))).toEqual([expect.stringMatching(/^no\s/)]);
    expect(un.filter((line) => !line.includes("(FICTIONAL demo)"))).toEqual([expect.stringMatching(/^yes\s/)]);
    expect(history.filter((line) => /^(yes|no)\s+OFAC /.test(line)).every((line) => line.includes("(FICTIONAL demo)"))).toBe(true);

    const second = await spawnServe(dataDir, {}, ["--demo"]);
    try {
      const demoKey = second.banner.match(/aml_live_[0-9A-Za-z]+/)?.[0] ?? "";
      expect(second.banner).toContain('the demo tenant is suspended, so this key is refused (403) until: aml tenant resume demo --reason "<why>"');
      expectProblem(await call(second.url, "/v1/usage", { key: demoKey }), 403, "NO_USABLE_TENANT");
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
