import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startIndex } from "@/matching/index";
import { watchlistExtension } from "@/watchlists/extension";
import { type OidcStack, startOidcStack } from "../oidc/harness";
import type { ListFile } from "@/watchlists/import";
import { uploadLists } from "../helpers/lists";

const SHARED = join(import.meta.dir, "..", "..", "..", "shared", "watchlists");

let stack: OidcStack;

const upload = async (files: ListFile[]): Promise<Response> => uploadLists(stack.server.url, await stack.token(), files);

async function servingVersion(): Promise<{ status: number; body: { versionId?: string; sources?: Array<{ source: string; entityCount: number }> } }> {
  const response = await fetch(`${stack.server.url}/v1/lists/version`, { headers: { "x-api-key": stack.seed.apiKey } });
  return { status: response.status, body: (await response.json()) as never };
}

beforeAll(async () => {
  stack = await startOidcStack({ extensions: async () => [watchlistExtension(startIndex, { pollMs: 200 })] });
});
afterAll(() => stack.close());

describe("POST /v1/lists/import (admin upload, air-gapped refresh)", () => {
  test("an admin bearer token uploads an official file; the server serves it at once", async () => {
    const response = await upload([{ name: "consolidated.xml", bytes: new Uint8Array(readFileSync(join(SHARED, "un/consolidated.xml"))) }]);
    expect(response.status).toBe(201);
    const report = (await response.json()) as { results: Array<{ source: string; status: string; version: { entityCount: number } }> };
    expect(report.results.map((r) => [r.source, r.status, r.version.entityCount])).toEqual([["UN", "imported", 1003]]);
    const serving = await servingVersion();
    expect(serving.status).toBe(200);
    expect(serving.body.sources?.map((s) => [s.source, s.entityCount])).toEqual([["UN", 1003]]);
  });

  test("a truncated file is 400 naming the file, and the serving version is unchanged", async () => {
    const before = await servingVersion();
    const whole = readFileSync(join(SHARED, "ofac/consolidated.xml"));
    const response = await upload([{ name: "cut-sdn.xml", bytes: new Uint8Array(whole.subarray(0, whole.length / 2)) }]);
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
    const problem = (await response.json()) as { detail: string; errors: Array<{ field: string }> };
    expect(problem.detail).toContain("cut-sdn.xml");
    expect(problem.errors[0]?.field).toBe("file");
    expect((await servingVersion()).body.versionId).toBe(before.body.versionId!);
  });

  test("an upload without a file is 400", async () => {
    const form = new FormData();
    form.append("note", "no file here");
    const response = await fetch(`${stack.server.url}/v1/lists/import`, {
      method: "POST",
      headers: { authorization: `Bearer ${await stack.token()}` },
      body: form,
    });
    expect(response.status).toBe(400);
  });
});
