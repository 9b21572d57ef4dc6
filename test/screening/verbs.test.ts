import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { AppContext } from "@/context";
import { ServiceError } from "@/errors";
import type { MatchIndex } from "@/matching/index";
import { bulkScreen } from "@/screening/bulk";
import { checkScreening } from "@/screening/check";
import type { ScreeningDeps } from "@/screening/deps";
import { writeTx } from "@/storage/db";
import { chargeScreens } from "@/usage/quota";
import type { LoadedLists } from "@/watchlists/runtime";
import { inMemoryListContext } from "../helpers/lists";
import { makeTenant } from "../helpers/tenants";

/** Domain verbs on an in-memory database, for the paths HTTP cannot reach on demand. */
let ctx: AppContext;
let lists: LoadedLists<MatchIndex>;
const meta = { actor: { type: "cli" as const, id: "test" }, correlationId: "corr-verbs" };

beforeEach(async () => {
  ({ ctx, lists } = await inMemoryListContext());
});
afterEach(() => ctx.db.close());

const deps = (overrides: Partial<ScreeningDeps> = {}): ScreeningDeps => ({ ...ctx, lists: () => lists, announce: () => undefined, ...overrides });
const count = (table: string) => ctx.db.sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? -1;

describe("the commit transaction is authoritative", () => {
  test("quota taken by another writer while matching ran: 429, and no screening, case, audit entry or event is written", async () => {
    const tenant = makeTenant(ctx, { monthlyScreeningQuota: 1, webhookUrl: "https://hooks.bank.example/aml" });
    const audits = count("audit_log");
    const racing = deps({
      lists: () => {
        // Another process charges the last screen between the pre-check and the commit.
        writeTx(ctx.db, () => chargeScreens(ctx.db, tenant.tenant.id, 1, new Date()));
        return lists;
      },
    });
    let caught: unknown;
    try {
      await checkScreening(racing, { tenantId: tenant.tenant.id, input: { fullName: "Dmitri Korvalev" }, idempotencyKey: null, meta });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ServiceError);
    expect((caught as ServiceError).code).toBe("QUOTA_EXCEEDED");
    expect([count("screenings"), count("cases"), count("webhook_outbox"), count("idempotency_keys")]).toEqual([0, 0, 0, 0]);
    expect(count("audit_log")).toBe(audits);
  });

  test("a successful check writes the screening, its case, the charge, one audit entry and one outbox event together", async () => {
    const tenant = makeTenant(ctx, { webhookUrl: "https://hooks.bank.example/aml" });
    const audits = count("audit_log");
    let announced = 0;
    const outcome = await checkScreening(deps({ announce: () => announced++ }), {
      tenantId: tenant.tenant.id,
      input: { fullName: "Dmitri Korvalev" },
      idempotencyKey: "k-1",
      meta,
    });
    expect([count("screenings"), count("cases"), count("webhook_outbox"), count("idempotency_keys")]).toEqual([1, 1, 1, 1]);
    expect(count("audit_log")).toBe(audits + 1);
    expect(announced).toBe(1);
    const outbox = ctx.db.sqlite.query<{ screening_id: string; payload: string }, []>("SELECT screening_id, payload FROM webhook_outbox").get();
    expect(outbox?.screening_id).toBe(outcome.record.id);
    expect(outbox?.payload).not.toContain("Korvalev");
  });
});

describe("the month a screen is charged to", () => {
  test("a bulk started before midnight at the month's end and committed after it is charged to the month of its createdAt", async () => {
    const tenant = makeTenant(ctx, { monthlyScreeningQuota: 100 });
    const started = new Date("2026-11-30T23:59:59.900Z");
    const committed = new Date("2026-12-01T00:00:00.200Z");
    let matching = false;
    const acrossMidnight = deps({
      // The clock passes midnight once matching has begun.
      clock: { now: () => (matching ? committed : started) },
      lists: () => {
        matching = true;
        return lists;
      },
    });
    const result = await bulkScreen(acrossMidnight, { tenantId: tenant.tenant.id, input: [{ fullName: "Dmitri Korvalev" }, { fullName: "Ada Example" }], meta });
    expect(result.summary.screened).toBe(2);
    const createdAt = ctx.db.sqlite.query<{ created_at: string }, [string]>("SELECT DISTINCT created_at FROM screenings WHERE tenant_id = ?").all(tenant.tenant.id);
    expect(createdAt).toEqual([{ created_at: started.toISOString() }]);
    const usage = ctx.db.sqlite.query<{ period: string; used: number }, [string]>("SELECT period, used FROM usage_counters WHERE tenant_id = ?").all(tenant.tenant.id);
    expect(usage).toEqual([{ period: "2026-11", used: 2 }]);
  });
});

describe("bulk row isolation", () => {
  test("a row whose matching throws gets an INTERNAL error entry; the other rows are screened and charged", async () => {
    const tenant = makeTenant(ctx);
    let reads = 0;
    const flaky: LoadedLists<MatchIndex> = {
      ...lists,
      get index(): MatchIndex {
        if (++reads === 2) throw new Error("index exploded");
        return lists.index;
      },
    };
    const result = await bulkScreen(deps({ lists: () => flaky }), {
      tenantId: tenant.tenant.id,
      input: [{ fullName: "Aldous Quentrell" }, { fullName: "Dmitri Korvalev" }, { fullName: "Jane Roe" }],
      meta,
    });
    expect(result.summary).toEqual({ total: 3, screened: 2, failed: 1 });
    expect(result.rows[1]?.error?.code).toBe("INTERNAL");
    expect(result.rows[1]?.screeningId).toBeNull();
    expect(count("screenings")).toBe(2);
  });

  test("with no watchlist loaded a screen is 503 NOT_READY and nothing is charged", async () => {
    const tenant = makeTenant(ctx);
    await expect(
      checkScreening(deps({ lists: () => null }), { tenantId: tenant.tenant.id, input: { fullName: "A B" }, idempotencyKey: null, meta }),
    ).rejects.toThrow("No watchlist snapshot is loaded yet");
    expect(count("usage_counters")).toBe(0);
  });
});
