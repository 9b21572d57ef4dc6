import { afterEach, describe, expect, test } from "bun:test";
import type { z } from "zod";
import { writeTx } from "@/storage/db";
import { issueApiKey } from "@/tenants/keys";
import { enqueueWebhook } from "@/webhooks/enqueue";
import type { WebhookExtensionOptions, } from "@/webhooks/extension";
import { webhookPayloadFromOutcome } from "@/webhooks/payload";
import { WebhookBulkRedeliveryResponse } from "@/webhooks/response-schemas";
import { type CallOptions, call, type Exchange, expectProblem, json } from "../helpers/api";
import { expectDocumentedResponses, servedPaths, strictDeep } from "../helpers/openapi";
import { makeTenant } from "../helpers/tenants";
import { expectEachDeliveredOnce, } from "../helpers/webhook-receiver";
import { enqueueEvents, outboxStatuses, sampleOutcome, startWebhookWorld, type WebhookWorld } from "./fixtures";

/**
 * POST /v1/webhooks/deliveries/redeliver against the real server, a real SQLite file and a real
 * receiver that verifies every signature: a bulk redelivery does to each selected delivery what the
 * single redelivery does, for the caller's tenant only, oldest first, up to the cap, in one
 * transaction with one audit entry, and refuses bad input before anything changes.
 */

let world: WebhookWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

type Json = Record<string, unknown>;
type BulkAnswer = z.output<typeof WebhookBulkRedeliveryResponse>;
const BULK = "/v1/webhooks/deliveries/redeliver";

/** One attempt and no retry: a failing receiver leaves each delivery dead at once. */
const ONE_ATTEMPT: WebhookExtensionOptions = { retryDelaysMs: [], maxAttempts: 1, intervalMs: 25 };
/** Retries an hour apart, jitter fixed at half: a failed delivery waits 45 min, pending. */
const WAITS_45_MIN: WebhookExtensionOptions = { retryDelaysMs: [3_600_000], maxAttempts: 5, intervalMs: 25, random: () => 0.5 };

/** startWebhookWorld, with the bulk redelivery's cap set on the routes when `cap` is given. */
function startWorld(options: WebhookExtensionOptions, cap?: number): Promise<WebhookWorld> {
  return startWebhookWorld(options, undefined, cap === undefined ? undefined : { bulkRedeliveryCap: cap });
}

function send(w: WebhookWorld, path: string, options: CallOptions = {}): Promise<Exchange> {
  return call(w.server.url, path, { key: w.tenant.apiKey, ...options });
}

/** A bulk redelivery with a JSON body (or none, when `body` is undefined). */
function bulk(w: WebhookWorld, body: unknown, options: CallOptions & { query?: string } = {}): Promise<Exchange> {
  const { query = "", ...rest } = options;
  return send(w, `${BULK}${query}`, {
    method: "POST",
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...rest,
    headers: { "content-type": "application/json", ...rest.headers },
  });
}

/** A 202 whose body is exactly the published schema; returns it. */
function accepted(res: Exchange): BulkAnswer {
  expect(res.status).toBe(202);
  const parsed = strictDeep(WebhookBulkRedeliveryResponse).safeParse(json(res));
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  return parsed.data as BulkAnswer;
}

/** Events queued with the given createdAt instants, as the screening transaction queues them. */
function enqueueAt(w: WebhookWorld, tenantId: string, instants: readonly string[]): string[] {
  return writeTx(w.server.ctx.db, () =>
    instants.map((at) => {
      const queued = enqueueWebhook(w.server.ctx.db, { tenantId, event: "screening.completed", payload: webhookPayloadFromOutcome("screening.completed", sampleOutcome()), at: new Date(at) });
      if (!queued) throw new Error("tenant has no webhook URL");
      return queued.id;
    }),
  );
}

interface Row {
  id: string;
  status: string;
  series: number;
  attempts: number;
  next_attempt_at: string | null;
  payload: string;
}

function row(w: WebhookWorld, id: string): Row {
  const found = w.server.ctx.db.sqlite.query<Row, [string]>("SELECT id, status, series, attempts, next_attempt_at, payload FROM webhook_outbox WHERE id = ?").get(id);
  if (!found) throw new Error(`no delivery ${id}`);
  return found;
}

const seriesOf = (w: WebhookWorld, ids: readonly string[]) => ids.map((id) => row(w, id).series);

async function bulkAudit(w: WebhookWorld, key = w.tenant.apiKey): Promise<Json[]> {
  const res = await send(w, "/v1/audit?action=webhook.redeliver_bulk", { key });
  expect(res.status).toBe(200);
  return json<{ items: Json[] }>(res).items;
}

/** Every delivery, attempt and audit entry of the appliance, and what the receiver got. */
function footprint(w: WebhookWorld) {
  const db = w.server.ctx.db.sqlite;
  return {
    outbox: db.query("SELECT * FROM webhook_outbox ORDER BY id").all(),
    attempts: db.query("SELECT count(*) AS n FROM webhook_attempts").get(),
    audit: db.query("SELECT count(*) AS n FROM audit_log").get(),
    received: w.receiver.delivered.length + w.receiver.failed.length,
  };
}

describe("bulk redelivery after an outage", () => {
  test("dead deliveries start a new series: each event arrives once more, signed, with the same delivery id and body", async () => {
    world = await startWorld({ retryDelaysMs: [20, 40], maxAttempts: 3, intervalMs: 25 });
    const w = world;
    const { server, receiver, tenant } = w;
    const tenantId = tenant.tenant.id;
    // One event delivered before the outage: the bulk action must leave it alone.
    const [deliveredId = ""] = enqueueEvents(server.ctx, tenantId, 1);
    w.wake();
    await receiver.waitUntil(() => outboxStatuses(server.ctx, tenantId).delivered === 1);

    await receiver.stop();
    const ids = enqueueEvents(server.ctx, tenantId, 4);
    w.wake();
    await receiver.waitUntil(() => outboxStatuses(server.ctx, tenantId).dead === 4);
    expect(ids.map((id) => [row(w, id).status, row(w, id).attempts])).toEqual(ids.map(() => ["dead", 3]));

    await receiver.start();
    const answer = accepted(await bulk(w, { status: "dead" }));
    expect(answer).toMatchObject({ redelivered: 4, more: false, status: "dead", createdFrom: null, createdTo: null });
    await receiver.waitUntil(() => receiver.delivered.length === 5);
    await Bun.sleep(150);

    // Exactly once more each, every signature valid (the receiver verifies before counting), the
    // delivered one not again.
    expectEachDeliveredOnce(receiver, [deliveredId, ...ids]);
    for (const id of ids) {
      const got = receiver.delivered.find((d) => d.deliveryId === id);
      expect(got).toMatchObject({ deliveryId: id, event: "screening.completed", attempt: "1" });
      expect(got?.rawBody).toBe(row(w, id).payload);
      const log = json<Json>(await send(w, `/v1/webhooks/deliveries/${id}`));
      expect(log).toMatchObject({ status: "delivered", series: 2, attemptCount: 1, lastStatusCode: 204, deadAt: null });
      expect((log.attempts as Json[]).map((a) => [a.series, a.attempt, a.statusCode])).toEqual([
        [1, 1, null],
        [1, 2, null],
        [1, 3, null],
        [2, 1, 204],
      ]);
    }
    expect(json<Json>(await send(w, `/v1/webhooks/deliveries/${deliveredId}`))).toMatchObject({ status: "delivered", series: 1, attemptCount: 1 });
    expect(outboxStatuses(server.ctx, tenantId)).toEqual({ delivered: 5 });
  });

  test("another tenant's dead deliveries are neither counted nor touched, and its audit chain gets nothing", async () => {
    world = await startWorld(ONE_ATTEMPT);
    const w = world;
    const { server, receiver, tenant } = w;
    const other = makeTenant(server.ctx, { webhookUrl: receiver.url });
    await receiver.stop();
    const mine = enqueueEvents(server.ctx, tenant.tenant.id, 2);
    const theirs = enqueueEvents(server.ctx, other.tenant.id, 3);
    w.wake();
    await receiver.waitUntil(() => outboxStatuses(server.ctx, tenant.tenant.id).dead === 2 && outboxStatuses(server.ctx, other.tenant.id).dead === 3);
    const theirsBefore = theirs.map((id) => row(w, id));
    await receiver.start();

    expect(accepted(await bulk(w, { status: "dead" })).redelivered).toBe(2);
    await receiver.waitUntil(() => receiver.delivered.length === 2);
    await Bun.sleep(100);
    expectEachDeliveredOnce(receiver, mine);
    expect(theirs.map((id) => row(w, id))).toEqual(theirsBefore);
    expect(outboxStatuses(server.ctx, other.tenant.id)).toEqual({ dead: 3 });
    expect(await bulkAudit(w, other.apiKey)).toEqual([]);
    expect((await bulkAudit(w)).map((e) => (e.details as Json).count)).toEqual([2]);
  });
});

describe("which deliveries a call takes", () => {
  test("createdFrom is inclusive, createdTo exclusive, offsets honoured; the audit entry records the filter", async () => {
    world = await startWorld(ONE_ATTEMPT);
    const w = world;
    const { server, receiver, tenant } = w;
    receiver.failWith = 500;
    const instants = ["2025-03-01T09:59:59.999Z", "2025-03-01T10:00:00.000Z", "2025-03-01T10:30:00.000Z", "2025-03-01T10:59:59.999Z", "2025-03-01T11:00:00.000Z"];
    const ids = enqueueAt(w, tenant.tenant.id, instants);
    w.wake();
    await receiver.waitUntil(() => outboxStatuses(server.ctx, tenant.tenant.id).dead === 5);
    receiver.failWith = null;

    // 10:00Z to 11:00Z, written in +01:00.
    const answer = accepted(await bulk(w, { status: "dead", createdFrom: "2025-03-01T11:00:00+01:00", createdTo: "2025-03-01T12:00:00+01:00" }));
    expect(answer).toMatchObject({ redelivered: 3, more: false, status: "dead", createdFrom: "2025-03-01T10:00:00.000Z", createdTo: "2025-03-01T11:00:00.000Z" });
    expect(seriesOf(w, ids)).toEqual([1, 2, 2, 2, 1]);
    await receiver.waitUntil(() => receiver.delivered.length === 3);
    expect(receiver.delivered.map((d) => d.deliveryId).sort()).toEqual(ids.slice(1, 4).sort());
    expect([row(w, ids[0] ?? "").status, row(w, ids[4] ?? "").status]).toEqual(["dead", "dead"]);

    const [entry, ...others] = await bulkAudit(w);
    expect(others).toEqual([]);
    expect(entry).toMatchObject({ action: "webhook.redeliver_bulk", targetType: "tenant", targetId: tenant.tenant.id, actor: { type: "api_key" } });
    expect(entry?.details).toEqual({
      status: "dead",
      createdFrom: "2025-03-01T10:00:00.000Z",
      createdTo: "2025-03-01T11:00:00.000Z",
      count: 3,
      firstId: ids[1],
      lastId: ids[3],
      more: false,
      nextCreatedFrom: null,
    });
    expect(json<Json>(await send(w, "/v1/audit/verify")).intact).toBe(true);
  });

  test("with a cap of 3, the oldest go first (createdAt, then id), no createdAt is split between calls, and the next call takes the rest", async () => {
    world = await startWorld(ONE_ATTEMPT, 3);
    const w = world;
    const { server, receiver, tenant } = w;
    receiver.failWith = 500;
    // Two share a createdAt across the cap's boundary: the first call stops before them.
    const ids = enqueueAt(w, tenant.tenant.id, ["2025-03-01T10:04:00Z", "2025-03-01T10:00:00Z", "2025-03-01T10:02:00Z", "2025-03-01T10:02:00Z", "2025-03-01T10:01:00Z", "2025-03-01T10:05:00Z"]);
    const created = (id: string) => w.server.ctx.db.sqlite.query<{ created_at: string }, [string]>("SELECT created_at FROM webhook_outbox WHERE id = ?").get(id)?.created_at ?? "";
    const oldestFirst = [...ids].sort((a, b) => created(a).localeCompare(created(b)) || a.localeCompare(b));
    w.wake();
    await receiver.waitUntil(() => outboxStatuses(server.ctx, tenant.tenant.id).dead === 6);
    receiver.failWith = null;

    // The cap would end between the two of 10:02: the call takes the two before them and starts the next call there.
    const first = accepted(await bulk(w, { status: "dead" }));
    expect(first).toMatchObject({ redelivered: 2, more: true, nextCreatedFrom: "2025-03-01T10:02:00.000Z" });
    expect(seriesOf(w, oldestFirst)).toEqual([2, 2, 1, 1, 1, 1]);
    const second = accepted(await bulk(w, { status: "dead", createdFrom: first.nextCreatedFrom }));
    expect(second).toMatchObject({ redelivered: 3, more: true, nextCreatedFrom: "2025-03-01T10:05:00.000Z" });
    expect(seriesOf(w, oldestFirst)).toEqual([2, 2, 2, 2, 2, 1]);
    expect(accepted(await bulk(w, { status: "dead", createdFrom: second.nextCreatedFrom }))).toMatchObject({ redelivered: 1, more: false, nextCreatedFrom: null });
    expect(seriesOf(w, oldestFirst)).toEqual([2, 2, 2, 2, 2, 2]);
    expect(accepted(await bulk(w, { status: "dead" }))).toMatchObject({ redelivered: 0, more: false });
    await receiver.waitUntil(() => receiver.delivered.length === 6);
    await Bun.sleep(100);
    expectEachDeliveredOnce(receiver, ids);

    const entries = (await bulkAudit(w)).reverse().map((e) => e.details as Json);
    expect(entries.map((d) => [d.count, d.firstId, d.lastId, d.more])).toEqual([
      [2, oldestFirst[0], oldestFirst[1], true],
      [3, oldestFirst[2], oldestFirst[4], true],
      [1, oldestFirst[5], oldestFirst[5], false],
      [0, null, null, false],
    ]);
  });

  test("more deliveries than the cap share the oldest createdAt (a bulk's): the call takes that instant whole, past the cap", async () => {
    world = await startWorld(ONE_ATTEMPT, 3);
    const w = world;
    const { server, receiver, tenant } = w;
    receiver.failWith = 500;
    const ids = enqueueAt(w, tenant.tenant.id, ["2025-03-02T10:00:00Z", "2025-03-02T10:00:00Z", "2025-03-02T10:00:00Z", "2025-03-02T10:00:00Z", "2025-03-02T10:01:00Z"]);
    w.wake();
    await receiver.waitUntil(() => outboxStatuses(server.ctx, tenant.tenant.id).dead === 5);
    receiver.failWith = null;
    const first = accepted(await bulk(w, { status: "dead" }));
    expect(first).toMatchObject({ redelivered: 4, more: true, nextCreatedFrom: "2025-03-02T10:01:00.000Z" });
    expect(accepted(await bulk(w, { status: "dead", createdFrom: first.nextCreatedFrom }))).toMatchObject({ redelivered: 1, more: false });
    await receiver.waitUntil(() => receiver.delivered.length === 5);
    await Bun.sleep(100);
    expectEachDeliveredOnce(receiver, ids);
  });

  test("status=pending makes deliveries waiting for a retry due now, same series and attempt count", async () => {
    world = await startWorld(WAITS_45_MIN);
    const w = world;
    const { server, receiver, tenant } = w;
    receiver.failWith = 500;
    const ids = enqueueEvents(server.ctx, tenant.tenant.id, 3);
    w.wake();
    await receiver.waitUntil(() => receiver.failed.length === 3 && outboxStatuses(server.ctx, tenant.tenant.id).pending === 3);
    const waiting = ids.map((id) => row(w, id));
    expect(waiting.map((r) => [r.series, r.attempts])).toEqual([
      [1, 1],
      [1, 1],
      [1, 1],
    ]);
    expect(waiting.every((r) => Date.parse(r.next_attempt_at ?? "") > Date.now() + 20 * 60_000)).toBe(true);

    receiver.failWith = null;
    // A dead status selects nothing here; no pending delivery is touched by it.
    expect(accepted(await bulk(w, { status: "dead" })).redelivered).toBe(0);
    expect(ids.map((id) => row(w, id))).toEqual(waiting);

    expect(accepted(await bulk(w, { status: "pending" }))).toMatchObject({ redelivered: 3, more: false, status: "pending" });
    await receiver.waitUntil(() => receiver.delivered.length === 3);
    await Bun.sleep(100);
    expectEachDeliveredOnce(receiver, ids);
    expect(receiver.delivered.map((d) => d.attempt)).toEqual(["2", "2", "2"]);
    for (const id of ids) {
      const log = json<Json>(await send(w, `/v1/webhooks/deliveries/${id}`));
      expect(log).toMatchObject({ status: "delivered", series: 1, attemptCount: 2 });
      expect((log.attempts as Json[]).map((a) => [a.series, a.attempt, a.statusCode])).toEqual([
        [1, 1, 500],
        [1, 2, 204],
      ]);
    }
    // Nothing waits any more: a second call finds nothing.
    expect(accepted(await bulk(w, { status: "pending" })).redelivered).toBe(0);
  });
});

describe("pending past the cap", () => {
  test("the next call from nextCreatedFrom reaches the deliveries behind the cap, not the ones hurried before that failed again", async () => {
    world = await startWorld(WAITS_45_MIN, 2);
    const w = world;
    const { server, receiver, tenant } = w;
    receiver.failWith = 500;
    const ids = enqueueAt(w, tenant.tenant.id, ["2025-04-01T10:00:00Z", "2025-04-01T10:01:00Z", "2025-04-01T10:02:00Z", "2025-04-01T10:03:00Z"]);
    w.wake();
    const attempts = () => ids.map((id) => row(w, id).attempts);
    const waiting = () => ids.map((id) => row(w, id)).filter((r) => r.status === "pending" && Date.parse(r.next_attempt_at ?? "") > Date.now()).length;
    await receiver.waitUntil(() => waiting() === 4 && attempts().every((n) => n === 1));

    // The receiver still fails: the two oldest are hurried, fail again and wait again.
    const first = accepted(await bulk(w, { status: "pending" }));
    expect(first).toMatchObject({ redelivered: 2, more: true, nextCreatedFrom: "2025-04-01T10:02:00.000Z" });
    await receiver.waitUntil(() => waiting() === 4 && attempts().join() === "2,2,1,1");

    // From the cursor: the two behind the cap, whatever became of the first two.
    expect(accepted(await bulk(w, { status: "pending", createdFrom: first.nextCreatedFrom }))).toMatchObject({ redelivered: 2, more: false });
    await receiver.waitUntil(() => waiting() === 4 && attempts().join() === "2,2,2,2");
    // The same body again would have taken the first two a third time: they are the oldest waiting.
    const audit = (await bulkAudit(w)).map((e) => e.details as Json);
    expect(audit.map((d) => [d.firstId, d.lastId])).toEqual([
      [ids[2], ids[3]],
      [ids[0], ids[1]],
    ]);
    expect(outboxStatuses(server.ctx, tenant.tenant.id)).toEqual({ pending: 4 });
  });
});

describe("refused before anything changes", () => {
  test("bad input is 400 naming the field, 406/415/403 likewise: no delivery changes and nothing is audited", async () => {
    world = await startWorld(ONE_ATTEMPT);
    const w = world;
    const { server, receiver, tenant } = w;
    receiver.failWith = 500;
    enqueueEvents(server.ctx, tenant.tenant.id, 2);
    w.wake();
    await receiver.waitUntil(() => outboxStatuses(server.ctx, tenant.tenant.id).dead === 2);
    receiver.failWith = null;
    // Issued (and audited) before the footprint is taken.
    const auditor = issueApiKey(server.ctx, { tenant: tenant.tenant.id, role: "auditor" }, { actor: { type: "cli", id: "test" } });
    const before = footprint(w);

    const cases: Array<[string, () => Promise<Exchange>, string, string | null]> = [
      ["no body", () => bulk(w, undefined), "", "is empty; send a JSON object"],
      ["no status", () => bulk(w, {}), "status", "is required: dead or pending"],
      ["status null", () => bulk(w, { status: null }), "status", "must be one of dead, pending"],
      ["status lost", () => bulk(w, { status: "lost" }), "status", "must be one of dead, pending"],
      ["status delivered", () => bulk(w, { status: "delivered" }), "status", "must be one of dead, pending"],
      ["status delivering", () => bulk(w, { status: "delivering" }), "status", "must be one of dead, pending"],
      ["a date", () => bulk(w, { status: "dead", createdFrom: "2025-03-01" }), "createdFrom", null],
      ["no offset", () => bulk(w, { status: "dead", createdFrom: "2025-03-01T10:00:00" }), "createdFrom", null],
      ["30 February", () => bulk(w, { status: "dead", createdTo: "2025-02-30T10:00:00Z" }), "createdTo", null],
      ["a number", () => bulk(w, { status: "dead", createdTo: 1_740_000_000_000 }), "createdTo", null],
      ["from = to", () => bulk(w, { status: "dead", createdFrom: "2025-03-01T10:00:00Z", createdTo: "2025-03-01T11:00:00+01:00" }), "createdTo", "must be later than createdFrom"],
      ["from > to", () => bulk(w, { status: "dead", createdFrom: "2025-03-02T00:00:00Z", createdTo: "2025-03-01T00:00:00Z" }), "createdTo", "must be later than createdFrom"],
      ["unknown field", () => bulk(w, { status: "dead", tenantId: "x" }), "tenantId", "is not a known field"],
      ["a query parameter", () => bulk(w, { status: "dead" }, { query: "?status=dead" }), "query.status", "is not a known field"],
      ["an array", () => bulk(w, [{ status: "dead" }]), "", "must be a JSON object, not an array"],
    ];
    for (const [label, request, field, message] of cases) {
      const problem = expectProblem(await request(), 400, "VALIDATION_FAILED", BULK);
      expect({ label, errors: problem.errors?.map((e) => e.field) }).toEqual({ label, errors: [field] });
      if (message !== null) expect({ label, message: problem.errors?.[0]?.message }).toEqual({ label, message });
      else expect(problem.errors?.[0]?.message).toContain("ISO 8601 date-time with a UTC offset");
      expect(problem.detail).toStartWith(field.startsWith("query.") ? "The query is invalid: " : "Bulk redeliver request is invalid: ");
    }
    expectProblem(await send(w, BULK, { method: "POST", headers: { "content-type": "application/json" }, body: "{" }), 400, "MALFORMED_JSON");
    expect(expectProblem(await bulk(w, { status: "dead" }, { headers: { "content-type": "text/plain" } }), 415, "UNSUPPORTED_MEDIA_TYPE").detail).toContain("send application/json");
    expectProblem(await bulk(w, { status: "dead" }, { headers: { accept: "application/xml" } }), 406, "NOT_ACCEPTABLE", BULK);
    expectProblem(await bulk(w, { status: "dead" }, { key: auditor.apiKey }), 403, "FORBIDDEN");
    expectProblem(await bulk(w, { status: "dead" }, { key: "" }), 401, "UNAUTHENTICATED");

    // A redelivery that slipped through would wake the dispatcher: give it the time to show.
    await Bun.sleep(100);
    expect(footprint(w)).toEqual(before);
    expect(await bulkAudit(w)).toEqual([]);
    // The same filter, valid, does change them: the footprint above could have failed.
    expect(accepted(await bulk(w, { status: "dead" })).redelivered).toBe(2);
    expect(await bulkAudit(w)).toHaveLength(1);
    await receiver.waitUntil(() => receiver.delivered.length === 2);
  });

  test("a filter that matches nothing is 202 with 0, audited once; the static path is not taken for a delivery id", async () => {
    world = await startWorld({ intervalMs: 60_000 });
    const w = world;
    const [id = ""] = enqueueEvents(w.server.ctx, w.tenant.tenant.id, 1);
    const before = row(w, id);
    const answer = accepted(await bulk(w, { status: "dead", createdFrom: "2020-01-01T00:00:00Z", createdTo: null }));
    expect(answer).toMatchObject({ redelivered: 0, more: false, status: "dead", createdFrom: "2020-01-01T00:00:00.000Z", createdTo: null });
    // Already due: a pending delivery with nothing to wait for is not selected.
    expect(accepted(await bulk(w, { status: "pending" })).redelivered).toBe(0);
    expect(row(w, id)).toEqual(before);
    const details = (await bulkAudit(w)).map((e) => e.details);
    expect(details).toEqual([
      { status: "pending", createdFrom: null, createdTo: null, count: 0, firstId: null, lastId: null, more: false, nextCreatedFrom: null },
      { status: "dead", createdFrom: "2020-01-01T00:00:00.000Z", createdTo: null, count: 0, firstId: null, lastId: null, more: false, nextCreatedFrom: null },
    ]);

    // GET on the static path reaches the read of a delivery whose id would be "redeliver", finds
    // none, and answers as the path's own route does: 405, Allow: POST.
    const read = await send(w, BULK);
    expectProblem(read, 405, "METHOD_NOT_ALLOWED", BULK);
    expect(read.headers.get("allow")).toBe("POST");
    // And the single redelivery of a delivery "redeliver" is its own 404, not the bulk action.
    expectProblem(await send(w, `${BULK}/redeliver`, { method: "POST" }), 404, "NOT_FOUND");
    expect(await bulkAudit(w)).toHaveLength(2);
  });
});

describe("OpenAPI", () => {
  test("documents the route: body, 202 schema, problems by reference, no query parameters, its policy", async () => {
    world = await startWorld({ intervalMs: 60_000 });
    const paths = await servedPaths(world.server.url);
    const operation = paths[BULK]?.post;
    expectDocumentedResponses(operation, "202", ["400", "401", "403", "406", "413", "415", "503"], "#/components/schemas/WebhookBulkRedelivery");
    expect(operation?.requestBody?.required).toBe(true);
    expect(Object.keys(operation?.requestBody?.content ?? {})).toEqual(["application/json"]);
    expect((operation?.parameters ?? []).filter((p) => p.in === "query")).toEqual([]);
    const full = operation as unknown as { "x-policy": string; tags: string[]; description: string };
    expect(full["x-policy"]).toBe("Screening.Write");
    expect(full.tags).toEqual(["Webhooks"]);
    expect(full.description).toContain("at most 10,000 per call");
    expect(full.description).toContain("webhook.redeliver_bulk");
    // The single redelivery is still there beside it.
    expect(paths["/v1/webhooks/deliveries/{id}/redeliver"]?.post).toBeDefined();
  });
});
