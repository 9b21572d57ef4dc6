import { afterEach, expect, test } from "bun:test";
import { writeTx } from "@/storage/db";
import { claimDueFairly } from "@/webhooks/outbox-store";
import { makeTenant } from "../helpers/tenants";
import { enqueueEvents, memoryContext } from "./fixtures";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

test("a tenant's backlog that fills the claim's window does not hide another tenant's due row behind it", () => {
  const ctx = memoryContext();
  cleanups.push(() => ctx.db.close());
  const busy = makeTenant(ctx, { webhookUrl: "https://busy.bank.example/aml" });
  const other = makeTenant(ctx, { webhookUrl: "https://other.bank.example/aml" });
  const backlog = enqueueEvents(ctx, busy.tenant.id, 60);
  const [waiting = ""] = enqueueEvents(ctx, other.tenant.id, 1);
  const claim = (room: Map<string, number>) =>
    writeTx(ctx.db, () => claimDueFairly(ctx.db, { owner: "me", now: new Date(), leaseMs: 60_000, limit: 20, room: { of: room, other: 16 } }).claimed);

  // The busy tenant has room for 6: the first 20 due rows are all its own, so one statement would
  // claim 6 and stop there, and the other tenant's row would wait for the whole backlog.
  const first = claim(new Map([[busy.tenant.id, 6]]));
  expect(first.filter((r) => r.tenant_id === busy.tenant.id).map((r) => r.id)).toEqual(backlog.slice(0, 6));
  expect(first.filter((r) => r.tenant_id === other.tenant.id).map((r) => r.id)).toEqual([waiting]);

  // A tenant not listed gets the share for others (16), in due order, however many slots are free.
  const second = claim(new Map());
  expect(second.map((r) => r.id)).toEqual(backlog.slice(6, 22).slice(0, 16));
});

test("without passing over, a backlogged tenant's claim reads one window; passing over reaches the rows behind it", () => {
  const ctx = memoryContext();
  cleanups.push(() => ctx.db.close());
  const busy = makeTenant(ctx, { webhookUrl: "https://busy.bank.example/aml" });
  const other = makeTenant(ctx, { webhookUrl: "https://other.bank.example/aml" });
  const backlog = enqueueEvents(ctx, busy.tenant.id, 40);
  const [waiting = ""] = enqueueEvents(ctx, other.tenant.id, 1);
  const claim = (busyRoom: number, passOver: boolean) =>
    writeTx(ctx.db, () =>
      claimDueFairly(ctx.db, { owner: "me", now: new Date(), leaseMs: 60_000, limit: 8, room: { of: new Map([[busy.tenant.id, busyRoom]]), other: 16 }, passOver }),
    );

  // The busy tenant has no room: a plain window of 8 is all its rows, so nothing is claimed and
  // nothing was passed over; the other tenant's row waits for a claim that may pass over.
  const plain = claim(0, false);
  expect(plain.claimed).toEqual([]);
  expect(plain.passOverMs).toBe(0);
  const passing = claim(0, true);
  expect(passing.claimed.map((r) => r.id)).toEqual([waiting]);
  expect(passing.passOverMs).toBeGreaterThan(0);

  // With room, the busy tenant's own claim is the plain window, passing over or not; once it runs
  // out, a claim that may not pass over stops there.
  const own = claim(3, false);
  expect(own.claimed.map((r) => r.id)).toEqual(backlog.slice(0, 3));
  expect(own.passOverMs).toBe(0);
});
