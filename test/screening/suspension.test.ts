// A tenant suspended by `aml tenant suspend` in another process, as an operator runs it beside the
// serving appliance: from the next request on, every screening call and read of the tenant is 403
// with nothing screened, charged or announced; events queued before it are still delivered; resume
// restores the same keys.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { call, json } from "../helpers/api";
import { runCli } from "../helpers/cli";
import { deliveriesSettled, type ScreeningWorld, startScreeningWorld } from "./world";

let world: ScreeningWorld;
beforeAll(async () => {
  world = await startScreeningWorld();
});
afterAll(() => world.close());

const aml = (...args: string[]) => runCli(args, { dataDir: world.lists.server.dataDir });
const idOf = (text: string) => (JSON.parse(text) as { id: string }).id;

describe("a suspended tenant", () => {
  test("screens nothing and reads nothing until resumed; its queued events still arrive", async () => {
    const first = await world.post("/v1/screenings/check", { fullName: "Ada Example", userReference: "before" });
    expect(first.status).toBe(200);
    const firstId = idOf(first.text);
    await deliveriesSettled(world, 1);

    // The receiver fails, so the next event stays queued while the tenant is suspended.
    world.receiver.failWith = 503;
    const queued = await world.post("/v1/screenings/check", { fullName: "Grace Example", userReference: "queued" });
    expect(queued.status).toBe(200);
    const queuedId = idOf(queued.text);

    const suspended = await aml("tenant", "suspend", world.tenant.tenant.slug, "--reason", "contract ended", "--json");
    expect(suspended.code).toBe(0);
    expect(JSON.parse(suspended.stdout)).toMatchObject({ id: world.tenant.tenant.id, status: "suspended" });
    const used = world.usedThisMonth();
    const delivered = world.receiver.delivered.length;

    const calls = [
      () => world.post("/v1/screenings/check", { fullName: "Ada Example" }),
      () => world.post("/v1/screenings/bulk", [{ fullName: "Ada Example" }, { fullName: "Grace Example" }]),
      () => call(world.url, `/v1/screenings/${firstId}/rescreen`, { method: "POST", key: world.key }),
      () => world.get(`/v1/screenings/${firstId}`),
      () => world.get("/v1/usage"),
      () => world.get("/v1/webhooks/deliveries"),
      () => world.get("/v1/usage", { key: world.auditorKey }),
    ];
    for (const send of calls) {
      const res = await send();
      expect(res.status).toBe(403);
      expect(json<{ code: string }>(res).code).toBe("NO_USABLE_TENANT");
      expect(res.text).toContain("suspended");
    }
    expect(world.usedThisMonth()).toBe(used);

    // The event of the screening made before the suspension is delivered once the receiver is back.
    world.receiver.failWith = null;
    await deliveriesSettled(world, delivered + 1);
    expect(world.receiver.delivered.map((d) => d.body["screeningId"])).toEqual([firstId, queuedId]);

    const again = await aml("tenant", "suspend", world.tenant.tenant.slug, "--reason", "twice");
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("already suspended");

    const noReason = await aml("tenant", "resume", world.tenant.tenant.slug);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toContain("--reason");
    expect((await world.get("/v1/usage")).status).toBe(403);

    const resumed = await aml("tenant", "resume", world.tenant.tenant.slug, "--reason", "renewed");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/status\s+active/);
    const after = await world.post("/v1/screenings/check", { fullName: "Ada Example", userReference: "after" });
    expect(after.status).toBe(200);
    expect(world.usedThisMonth()).toBe(used + 1);

    const audit = await world.get("/v1/audit?targetType=tenant");
    const entries = json<{ items: Array<{ action: string; actor: { type: string }; details: { reason?: string } }> }>(audit).items;
    const changes = entries.filter((e) => e.action === "tenant.suspend" || e.action === "tenant.resume").reverse();
    expect(changes.map((e) => [e.action, e.actor.type, e.details.reason])).toEqual([
      ["tenant.suspend", "cli", "contract ended"],
      ["tenant.resume", "cli", "renewed"],
    ]);
    expect(json(await world.get("/v1/audit/verify"))).toMatchObject({ intact: true });
  });
});
