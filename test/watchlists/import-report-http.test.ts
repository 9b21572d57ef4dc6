// POST /v1/lists/import: editions of one list with different dates are refused like any other upload
// that cannot be imported as given (400 problem+json, nothing published), and an unchanged source is
// reported with a zero diff.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startIndex } from "@/matching/index";
import { watchlistExtension } from "@/watchlists/extension";
import type { ListFile } from "@/watchlists/import";
import { latestSnapshot } from "@/watchlists/store/read";
import { type OidcStack, startOidcStack } from "../oidc/harness";
import { uploadLists } from "../helpers/lists";

const SHARED = join(import.meta.dir, "..", "..", "..", "shared", "watchlists");
const file = (rel: string): ListFile => ({ name: rel.split("/").pop() ?? rel, bytes: new Uint8Array(readFileSync(join(SHARED, rel))) });

let stack: OidcStack;
beforeAll(async () => {
  stack = await startOidcStack({ extensions: async () => [watchlistExtension(startIndex, { pollMs: 200 })] });
});
afterAll(() => stack.close());

const upload = async (files: ListFile[]): Promise<Response> => uploadLists(stack.server.url, await stack.token(), files);

interface EditionProblem {
  code: string;
  detail: string;
  errors: Array<{ field: string; message: string }>;
  editionConflicts: Array<{ source: string; shared: number; editions: Array<{ files: string[]; format: string; publishedAt: string | null; publicationDay: string | null }> }>;
}

describe("POST /v1/lists/import", () => {
  test("two editions of OFAC's non-SDN list of different dates: 400 naming both, nothing published", async () => {
    expect((await upload([file("un/consolidated.xml")])).status).toBe(201);
    const before = latestSnapshot(stack.server.ctx.db)?.id;
    const refused = await upload([file("ofac/consolidated.xml"), file("ofac/cons_advanced.xml")]);
    expect(refused.status).toBe(400);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    const problem = (await refused.json()) as EditionProblem;
    expect(problem.code).toBe("VALIDATION_FAILED");
    expect(problem.detail).toContain("Refused: the OFAC files hold more than one edition of the same list");
    expect(problem.detail).toContain("The serving lists are unchanged.");
    expect(problem.errors.map((e) => e.field)).toEqual(["file"]);
    expect(problem.editionConflicts).toEqual([
      {
        source: "OFAC",
        shared: 369,
        editions: [
          { files: ["cons_advanced.xml"], format: "ofac-advanced-xml", publishedAt: "2020-03-17T00:00:00.000Z", publicationDay: "2020-03-17" },
          { files: ["consolidated.xml"], format: "ofac-xml", publishedAt: "2023-03-08T00:00:00.000Z", publicationDay: "2023-03-08" },
        ],
      },
    ]);
    expect(latestSnapshot(stack.server.ctx.db)?.id).toBe(before ?? "");
  });

  test("an unchanged upload is 201 with status unchanged and a zero diff", async () => {
    await upload([file("un/consolidated.xml")]);
    const again = await upload([file("un/consolidated.xml")]);
    expect(again.status).toBe(201);
    const report = (await again.json()) as { results: Array<{ status: string; version: { diff: Record<string, number> } }> };
    expect(report.results[0]?.status).toBe("unchanged");
    expect(report.results[0]?.version.diff).toEqual({ added: 0, removed: 0, changed: 0, unchanged: 1003 });
  });

  test("one file uploaded twice (a PEP file, under two names) is read once and named in duplicateFiles", async () => {
    const peps = file("wikidata/opensanctions_ftm_sa_wiki_peps/entities.ftm.json");
    const once = (await (await upload([peps])).json()) as { results: Array<{ version: { entityCount: number } }> };
    const twice = await upload([peps, { name: "copy.ftm.json", bytes: peps.bytes }]);
    expect(twice.status).toBe(201);
    const report = (await twice.json()) as { duplicateFiles: unknown; results: Array<{ status: string; version: { entityCount: number; files: Array<{ name: string }> } }> };
    expect(report.duplicateFiles).toEqual([{ file: "copy.ftm.json", sameAs: "entities.ftm.json" }]);
    expect(report.results[0]?.status).toBe("unchanged");
    expect(report.results[0]?.version.entityCount).toBe(once.results[0]?.version.entityCount ?? -1);
    expect(report.results[0]?.version.files.map((f) => f.name)).toEqual(["entities.ftm.json"]);
  });
});
