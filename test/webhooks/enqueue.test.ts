import { afterEach, describe, expect, test } from "bun:test";
import type { AppContext } from "@/context";
import { writeTx } from "@/storage/db";
import { enqueueWebhook } from "@/webhooks/enqueue";
import { webhookPayloadFromOutcome } from "@/webhooks/payload";
import { makeTenant } from "../helpers/tenants";
import { memoryContext, sampleOutcome } from "./fixtures";

let ctx: AppContext;
afterEach(() => ctx?.db.close());

function countRows(): number {
  return ctx.db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM webhook_outbox").get()?.n ?? -1;
}

describe("enqueueWebhook", () => {
  test("stores the exact JSON body, pending and due now, in the caller's transaction", () => {
    ctx = memoryContext();
    const tenant = makeTenant(ctx, { webhookUrl: "https://hooks.bank.example/aml" });
    const payload = webhookPayloadFromOutcome("screening.completed", sampleOutcome());
    const at = new Date("2025-06-01T10:00:00.000Z");
    const queued = writeTx(ctx.db, () => enqueueWebhook(ctx.db, { tenantId: tenant.tenant.id, event: "screening.completed", payload, at }));
    expect(queued?.id).toBeString();
    const row = ctx.db.sqlite
      .query<{ payload: string; status: string; next_attempt_at: string; event: string; screening_id: string; attempts: number }, []>(
        "SELECT * FROM webhook_outbox",
      )
      .get();
    expect(row?.payload).toBe(JSON.stringify(payload));
    expect(row?.status).toBe("pending");
    expect(row?.attempts).toBe(0);
    expect(row?.next_attempt_at).toBe(at.toISOString());
    expect(row?.event).toBe("screening.completed");
    expect(row?.screening_id).toBe(payload.screeningId);
  });

  test("queues nothing for a tenant without a webhookUrl", () => {
    ctx = memoryContext();
    const tenant = makeTenant(ctx);
    const payload = webhookPayloadFromOutcome("screening.completed", sampleOutcome());
    const queued = writeTx(ctx.db, () => enqueueWebhook(ctx.db, { tenantId: tenant.tenant.id, event: "screening.completed", payload, at: new Date() }));
    expect(queued).toBeNull();
    expect(countRows()).toBe(0);
  });

  test("rolls back with the caller: a failed screening transaction announces nothing", () => {
    ctx = memoryContext();
    const tenant = makeTenant(ctx, { webhookUrl: "https://hooks.bank.example/aml" });
    const payload = webhookPayloadFromOutcome("screening.completed", sampleOutcome());
    expect(() =>
      writeTx(ctx.db, () => {
        enqueueWebhook(ctx.db, { tenantId: tenant.tenant.id, event: "screening.completed", payload, at: new Date() });
        throw new Error("screening insert failed");
      }),
    ).toThrow("screening insert failed");
    expect(countRows()).toBe(0);
  });

  test("refuses to run outside a transaction, and an event that disagrees with its payload", () => {
    ctx = memoryContext();
    const tenant = makeTenant(ctx, { webhookUrl: "https://hooks.bank.example/aml" });
    const payload = webhookPayloadFromOutcome("screening.completed", sampleOutcome());
    const input = { tenantId: tenant.tenant.id, event: "screening.completed" as const, payload, at: new Date() };
    expect(() => enqueueWebhook(ctx.db, input)).toThrow("inside the caller's write transaction");
    expect(() => writeTx(ctx.db, () => enqueueWebhook(ctx.db, { ...input, event: "monitoring.alert" }))).toThrow("queued as monitoring.alert");
    expect(countRows()).toBe(0);
  });
});
