import { afterAll, beforeAll, expect, test } from "bun:test";
import { importListFiles } from "@/watchlists/import";
import { json } from "../helpers/api";
import { ofacFilesWith } from "../helpers/lists";
import { startScreeningWorld, type ScreeningWorld } from "./world";

let world: ScreeningWorld;
beforeAll(async () => {
  world = await startScreeningWorld();
});
afterAll(() => world.close());

test("an import during a stream of screens fails no screen, and later screens read the new version", async () => {
  const ctx = world.lists.server.ctx;
  const firstSnapshot = world.lists.watchlists.runtime().current()?.snapshot.id;
  const statuses: number[] = [];
  const snapshots = new Set<string>();
  let importing = true;
  const stream = (async () => {
    while (importing || statuses.length < 50) {
      const batch = await Promise.all(
        Array.from({ length: 8 }, (_, i) => world.post("/v1/screenings/check", { fullName: i % 2 ? "Dmitri Korvalev" : "Marguerite Lindqvist" })),
      );
      for (const res of batch) {
        statuses.push(res.status);
        if (res.status === 200) snapshots.add(json<{ listVersions: { snapshotId: string } }>(res).listVersions.snapshotId);
      }
    }
  })();
  // The first screens must finish on the first snapshot before the import starts.
  while (statuses.length === 0) await Bun.sleep(5);
  const extra = [
    { id: 90999, name: "LINDQVIST, Marguerite" },
    ...Array.from({ length: 300 }, (_, i) => ({ id: 91000 + i, name: `FILLERSON${i}, Person` })),
  ];
  const report = await importListFiles(ctx.db, ofacFilesWith(extra), { actor: { type: "cli", id: "test" } });
  // The server's poll picks the new snapshot up by itself.
  const deadline = Date.now() + 10_000;
  while (world.lists.watchlists.runtime().current()?.snapshot.id !== report.snapshot?.id && Date.now() < deadline) await Bun.sleep(20);
  await Bun.sleep(100);
  importing = false;
  await stream;

  expect(statuses.length).toBeGreaterThanOrEqual(50);
  expect(statuses.filter((s) => s !== 200)).toEqual([]);
  expect(world.lists.watchlists.runtime().current()?.snapshot.id).toBe(report.snapshot?.id ?? "missing");
  expect(snapshots.has(firstSnapshot ?? "")).toBe(true);
  expect(snapshots.has(report.snapshot?.id ?? "")).toBe(true);
  const after = json<{ decision: string }>(await world.post("/v1/screenings/check", { fullName: "Marguerite Lindqvist" }));
  expect(after.decision).not.toBe("Clear");
});
