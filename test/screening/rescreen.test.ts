import { afterAll, beforeAll, expect, test } from "bun:test";
import { setRiskProfile } from "@/profiles/store";
import { importListFiles } from "@/watchlists/import";
import { expectProblem, json } from "../helpers/api";
import { ofacFilesWith } from "../helpers/lists";
import { insertScreeningCopy } from "../helpers/screenings";
import { startScreeningWorld, type ScreeningWorld } from "./world";

interface Screening {
  id: string;
  correlationId: string | null;
  decision: string;
  rescreenOf: string | null;
  origin: string;
  subject: unknown;
  options: { threshold: number; lists: string[] };
  listVersions: { snapshotId: string };
  matches: Array<{ externalId: string }>;
}

let world: ScreeningWorld;
beforeAll(async () => {
  world = await startScreeningWorld();
});
afterAll(() => world.close());

test("a rescreen is a new screening of the same subject with the ORIGINAL options against the current lists; the original is untouched", async () => {
  const subject = { fullName: "Penelope Whitcombe-Arden", dateOfBirth: "1980", userReference: "re-1" };
  const original = json<Screening>(await world.post("/v1/screenings/check", { ...subject, options: { threshold: 0.8 } }));
  expect(original.decision).toBe("Clear");

  // The profile changes and a new list version lists the subject: the rescreen sees the lists, not the profile.
  setRiskProfile(world.lists.server.ctx, world.tenant.tenant.id, { threshold: 0.99, coveragePreset: "sanctions" }, { actor: { type: "cli", id: "test" } });
  const ctx = world.lists.server.ctx;
  await importListFiles(ctx.db, ofacFilesWith([{ id: 90100, name: "WHITCOMBE-ARDEN, Penelope" }]), { actor: { type: "cli", id: "test" } });
  await world.lists.watchlists.runtime().refresh();

  const used = world.usedThisMonth();
  const res = await world.post(`/v1/screenings/${original.id}/rescreen`, null);
  expect(res.status).toBe(200);
  const rescreen = json<Screening>(res);
  expect(rescreen.id).not.toBe(original.id);
  expect(rescreen.rescreenOf).toBe(original.id);
  expect(rescreen.origin).toBe("rescreen");
  expect(rescreen.subject).toEqual(original.subject);
  expect(rescreen.options).toEqual(original.options);
  expect(rescreen.options.threshold).toBe(0.8);
  expect(rescreen.listVersions.snapshotId).not.toBe(original.listVersions.snapshotId);
  expect(["Match", "Review"]).toContain(rescreen.decision);
  expect(rescreen.matches[0]?.externalId).toBe("90100");
  expect(world.usedThisMonth()).toBe(used + 1);

  const again = json<Screening>(await world.get(`/v1/screenings/${original.id}`));
  expect({ ...again, correlationId: null }).toEqual({ ...original, correlationId: null });
  expect(again.decision).toBe("Clear");
});

test("a rescreen of an unknown or malformed id is 404", async () => {
  expect((await world.post("/v1/screenings/01900000-0000-7000-8000-000000000000/rescreen", null)).status).toBe(404);
  expect((await world.post("/v1/screenings/nope/rescreen", null)).status).toBe(404);
  expect((await world.post(`/v1/screenings/${"x".repeat(300)}/rescreen`, null)).status).toBe(404);
});

test("a stored screening of a name with nothing to match (from before names were checked) is not rescreened: 409, not charged", async () => {
  const original = json<{ id: string }>(await world.post("/v1/screenings/check", { fullName: "Ada Example" }));
  // What an older build stored: a copy of the row under a new id, its subject a name with no letter.
  const db = world.lists.server.ctx.db;
  const subject = JSON.parse(db.sqlite.query<{ subject: string }, [string]>("SELECT subject FROM screenings WHERE id = ?").get(original.id)?.subject ?? "{}");
  const legacyId = insertScreeningCopy(db, original.id, { subject: JSON.stringify({ ...subject, fullName: "!!!" }) }, "01900000-0000-7000-8000-0000000000aa");
  const used = world.usedThisMonth();
  const problem = expectProblem(await world.post(`/v1/screenings/${legacyId}/rescreen`, null), 409, "CONFLICT");
  expect(problem.detail).toContain("no letter or digit");
  expect(world.usedThisMonth()).toBe(used);
});
