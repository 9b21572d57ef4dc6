import { DEFAULT_OPTIONS } from "@/matching/options";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openContext } from "@/bootstrap";
import { loadConfig } from "@/config";
import { importListFiles } from "@/watchlists/import";
import { runCli } from "../helpers/cli";
import { fixtureFiles } from "../helpers/lists";
import { tempDataDir } from "../helpers/server";
import { makeTenant } from "../helpers/tenants";

interface Line {
  line: number;
  decision?: string;
  score?: number;
  riskScore?: number;
  subject?: { fullName: string; aliases: string[]; nationality: string | null };
  matches?: Array<{ source: string; externalId: string; matchedName: string; score: number }>;
  listsNotLoaded?: string[];
  error?: { errors: Array<{ field: string }> };
}

let dataDir: string;
let tenantSlug: string;
/** The result of a command that must succeed, with its stderr in the failure message. */
function ok(r: { code: number; stdout: string; stderr: string }): string {
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`);
  return r.stdout;
}
const lines = (stdout: string) => stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Line);
const count = (table: string) => {
  const ctx = openContext(loadConfig({ env: {}, flags: { dataDir, logLevel: "silent" } }));
  try {
    return ctx.db.sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? -1;
  } finally {
    ctx.db.close();
  }
};

beforeAll(async () => {
  dataDir = tempDataDir("aml-screen-cli-");
  const ctx = openContext(loadConfig({ env: {}, flags: { dataDir, logLevel: "silent" } }));
  try {
    await importListFiles(ctx.db, fixtureFiles(), { actor: { type: "cli", id: "test" } });
    tenantSlug = makeTenant(ctx, { enabledLists: ["UN"] }).tenant.slug;
  } finally {
    ctx.db.close();
  }
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("aml screen", () => {
  test("--name screens one subject and prints one JSON line", async () => {
    const r = await runCli(["screen", "--name", "Dmitri Korvalev", "--dob", "1961", "--nationality", "Russia"], { dataDir });
    const [result] = lines(ok(r));
    expect(["Match", "Review"]).toContain(result?.decision ?? "");
    expect(result?.matches?.[0]).toMatchObject({ source: "OFAC", externalId: "90001" });
    expect(result?.subject?.nationality).toBe("RU");
    expect(r.stderr).toContain("nothing was stored or charged");
    // Only OFAC is imported: the default lists' others were not checked, and both outputs say so.
    expect(result?.listsNotLoaded).toEqual(["EU", "UK", "UN", "WIKIDATA"]);
    expect(r.stderr).toContain("NOT checked, as the snapshot does not hold them: EU, UK, UN, WIKIDATA");
  });

  test("a CSV with First Name + Last Name and aliases screens each row, stores and charges nothing", async () => {
    const file = join(dataDir, "subjects.csv");
    writeFileSync(file, "First Name,Last Name,aliases,userReference,Notes\nDmitri,Korvalev,,c-1,x\nPenelope,Whitcombe,P. Whit;Penny W,c-2,\n,,,c-3,\n");
    const before = [count("screenings"), count("usage_counters"), count("audit_log")];
    const r = await runCli(["screen", file, "--threshold", "0.85"], { dataDir });
    expect([r.code, r.stderr]).toEqual([1, expect.stringContaining("nothing was stored or charged")]);
    const out = lines(r.stdout);
    expect(out.map((l) => l.line)).toEqual([1, 2, 3]);
    expect(out[0]?.decision).not.toBe("Clear");
    expect(out[1]?.decision).toBe("Clear");
    expect(out[1]?.subject?.aliases).toEqual(["P. Whit", "Penny W"]);
    expect(out[2]?.error?.errors.map((e) => e.field)).toEqual(["fullName"]);
    expect(r.stderr).toContain('column "Notes" is not a subject field');
    expect([count("screenings"), count("usage_counters"), count("audit_log")]).toEqual(before);
  });

  test("JSONL in, results to --out, bad lines reported by line number", async () => {
    const file = join(dataDir, "subjects.jsonl");
    const out = join(dataDir, "results.jsonl");
    writeFileSync(file, '{"fullName":"Ottoline Vanderloop","aliases":["O. Vanderloop"]}\n\nnot json\n{"fullName":"A B","bogus":1}\n');
    const r = await runCli(["screen", file, "--out", out, "--lists", "OFAC"], { dataDir });
    expect([r.code, r.stderr]).toEqual([1, expect.stringContaining("nothing was stored or charged")]);
    expect(r.stdout).toBe("");
    const written = lines(readFileSync(out, "utf8"));
    expect(written.map((l) => l.line)).toEqual([1, 3, 4]);
    expect(written[0]?.matches?.[0]?.externalId).toBe("90004");
    expect(written[1]?.error).toBeDefined();
    expect(written[2]?.error?.errors.map((e) => e.field)).toEqual(["bogus"]);
  });

  test("--tenant applies the tenant's enabled lists; out-of-range options fail with the field", async () => {
    const r = await runCli(["screen", "--name", "Dmitri Korvalev", "--tenant", tenantSlug], { dataDir });
    expect(lines(ok(r))[0]?.decision).toBe("Clear");
    expect(r.stderr).not.toContain("suspended");
    const bad = await runCli(["screen", "--name", "A B", "--threshold", "2"], { dataDir });
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("threshold")]);
  });

  test("a suspended tenant's profile still applies, with a note that the API refuses its screens", async () => {
    const ctx = openContext(loadConfig({ env: {}, flags: { dataDir, logLevel: "silent" } }));
    let slug = "";
    try {
      slug = makeTenant(ctx, { enabledLists: ["UN"] }).tenant.slug;
    } finally {
      ctx.db.close();
    }
    ok(await runCli(["tenant", "suspend", slug, "--reason", "contract ended"], { dataDir }));
    const r = await runCli(["screen", "--name", "Dmitri Korvalev", "--tenant", slug], { dataDir });
    expect(lines(ok(r))[0]?.decision).toBe("Clear");
    expect(r.stderr).toContain(`note: tenant ${slug} is suspended: its profile is used here, but the API refuses its screens`);
  });
});

describe("aml profile", () => {
  test("show prints the defaults; set --set merges; set --json-file replaces; bad values name the field", async () => {
    const shown = ok(await runCli(["--json", "profile", "show", tenantSlug], { dataDir }));
    expect(JSON.parse(shown)).toMatchObject({ isDefault: true, options: { threshold: DEFAULT_OPTIONS.threshold } });

    const set = ok(await runCli(["--json", "profile", "set", tenantSlug, "--set", "threshold=0.9", "--set", "lists=OFAC,UN", "--set", "homeCountry=gb"], { dataDir }));
    expect(JSON.parse(set)).toMatchObject({ isDefault: false, options: { threshold: 0.9, lists: ["OFAC", "UN"], homeCountry: "GB" } });

    const merged = ok(await runCli(["--json", "profile", "set", tenantSlug, "--set", "resultCap=5"], { dataDir }));
    expect(JSON.parse(merged).options).toMatchObject({ threshold: 0.9, resultCap: 5 });

    const leave = ok(await runCli(["--json", "profile", "set", tenantSlug, "--set", "looseningAllowed=threshold, lists"], { dataDir }));
    expect(JSON.parse(leave).options).toMatchObject({ resultCap: 5, looseningAllowed: ["threshold", "lists"] });
    const none = ok(await runCli(["--json", "profile", "set", tenantSlug, "--set", "looseningAllowed=none"], { dataDir }));
    expect(JSON.parse(none).options.looseningAllowed).toEqual([]);
    // In a table, an empty list shows as "-", as a value not set does, not as a blank.
    expect(ok(await runCli(["profile", "show", tenantSlug], { dataDir }))).toMatch(/^looseningAllowed\s+-$/m);
    const badLeave = await runCli(["profile", "set", tenantSlug, "--set", "looseningAllowed=homeCountry"], { dataDir });
    expect([badLeave.code, badLeave.stderr]).toEqual([2, expect.stringContaining("looseningAllowed")]);

    const file = join(dataDir, "profile.json");
    writeFileSync(file, JSON.stringify({ coveragePreset: "sanctions" }));
    const replaced = ok(await runCli(["--json", "profile", "set", tenantSlug, "--json-file", file], { dataDir }));
    expect(JSON.parse(replaced).options).toMatchObject({ threshold: DEFAULT_OPTIONS.threshold, coveragePreset: "sanctions", lists: null });

    // What show --json printed, edited and set again: its options are used.
    const saved = JSON.parse(ok(await runCli(["--json", "profile", "show", tenantSlug], { dataDir })));
    saved.options.threshold = 0.93;
    writeFileSync(file, JSON.stringify(saved));
    const roundTrip = ok(await runCli(["--json", "profile", "set", tenantSlug, "--json-file", file], { dataDir }));
    expect(JSON.parse(roundTrip).options).toEqual({ ...saved.options, threshold: 0.93 });
    // A shown profile with a key show never prints is no profile: refused naming it, as any unknown option.
    writeFileSync(file, JSON.stringify({ ...saved, extra: 1 }));
    const notShown = await runCli(["profile", "set", tenantSlug, "--json-file", file], { dataDir });
    expect([notShown.code, notShown.stderr]).toEqual([2, expect.stringContaining("extra is not a known field")]);

    const bad = await runCli(["profile", "set", tenantSlug, "--set", "candidateLimit=1"], { dataDir });
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("candidateLimit")]);
    const unknown = await runCli(["profile", "show", "no-such-tenant"], { dataDir });
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining("not found")]);
  });
});
