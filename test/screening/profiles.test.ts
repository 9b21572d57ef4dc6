import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_OPTIONS } from "@/matching/options";
import { importListFiles } from "@/watchlists/import";
import { allExtensions, fixtureFiles } from "../helpers/lists";
import { call, type OidcStack, startOidcStack } from "../oidc/harness";

interface Profile {
  tenantId: string;
  options: Record<string, unknown> & { threshold: number; lists: string[] | null };
  isDefault: boolean;
  updatedBy: string | null;
}

let stack: OidcStack;
let admin: { bearer: string };
let built: ReturnType<typeof allExtensions>;
beforeAll(async () => {
  stack = await startOidcStack({
    extensions: async () => {
      built = allExtensions();
      return built.extensions;
    },
  });
  admin = { bearer: await stack.token() };
  await importListFiles(stack.server.ctx.db, fixtureFiles(), { actor: { type: "cli", id: "test" } });
  await built.watchlists.runtime().refresh();
});
afterAll(() => stack.close());

const path = () => `/v1/tenants/${stack.seed.id}/risk-profile`;

describe("risk profile admin routes", () => {
  test("GET returns the documented defaults while none is set", async () => {
    const res = await call<Profile>(stack.server.url, "GET", path(), { credential: admin });
    expect(res.status).toBe(200);
    expect(res.body.isDefault).toBe(true);
    expect(res.body.options.threshold).toBe(DEFAULT_OPTIONS.threshold);
    expect(res.body.options.coveragePreset).toBe(DEFAULT_OPTIONS.coveragePreset);
  });

  test("PUT replaces the profile (omitted fields default), is audited, and new screens use it", async () => {
    const res = await call<Profile>(stack.server.url, "PUT", path(), {
      credential: admin,
      body: { threshold: 0.97, coveragePreset: "sanctions", homeCountry: "GB" },
    });
    expect(res.status).toBe(200);
    expect(res.body.isDefault).toBe(false);
    expect(res.body.options).toMatchObject({ threshold: 0.97, coveragePreset: "sanctions", homeCountry: "GB", resultCap: DEFAULT_OPTIONS.resultCap });
    expect(res.body.updatedBy).toStartWith("oidc:");
    const read = await call<Profile>(stack.server.url, "GET", path(), { credential: admin });
    expect(read.body.options).toEqual(res.body.options);

    const audit = stack.server.ctx.db.sqlite
      .query<{ action: string }, [string]>("SELECT action FROM audit_log WHERE chain = ? AND action = 'profile.set'")
      .all(stack.seed.id);
    expect(audit).toHaveLength(1);

    const screen = await call<{ options: { threshold: number; lists: string[] } }>(stack.server.url, "POST", "/v1/screenings/check", {
      credential: { apiKey: stack.seed.apiKey },
      body: { fullName: "Dmitri Korvalev" },
    });
    expect(screen.status).toBe(200);
    expect(screen.body.options.threshold).toBe(0.97);
    expect(screen.body.options.lists).toEqual(["OFAC", "EU", "UK", "UN"]);
  });

  test("PUT out of range is 400 naming each field; nothing changes", async () => {
    const before = await call<Profile>(stack.server.url, "GET", path(), { credential: admin });
    const res = await call<{ code: string; errors: Array<{ field: string }> }>(stack.server.url, "PUT", path(), {
      credential: admin,
      body: { threshold: 0.2, candidateLimit: 1, lists: ["NOPE"], bogus: true },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_FAILED");
    expect(res.body.errors.map((e) => e.field).sort()).toEqual(["bogus", "candidateLimit", "lists[0]", "threshold"]);
    const after = await call<Profile>(stack.server.url, "GET", path(), { credential: admin });
    expect(after.body.options).toEqual(before.body.options);
  });

  test("an unknown tenant is 404", async () => {
    for (const id of ["01900000-0000-7000-8000-000000000000", "nope"]) {
      expect((await call(stack.server.url, "GET", `/v1/tenants/${id}/risk-profile`, { credential: admin })).status).toBe(404);
      expect((await call(stack.server.url, "PUT", `/v1/tenants/${id}/risk-profile`, { credential: admin, body: {} })).status).toBe(404);
    }
  });

  test("a tenant API key is refused: the profile is admin-only", async () => {
    const res = await call(stack.server.url, "PUT", path(), { credential: { apiKey: stack.seed.apiKey }, body: { threshold: 0.6 } });
    expect(res.status).toBe(403);
    expect((await call(stack.server.url, "GET", path(), { credential: { apiKey: stack.seed.apiKey } })).status).toBe(403);
  });
});
