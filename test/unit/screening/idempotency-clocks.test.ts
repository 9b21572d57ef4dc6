import { afterEach, beforeEach, expect, test } from "bun:test";
import type { AppContext } from "@/context";
import type { MatchIndex } from "@/matching/index";
import { checkScreening } from "@/screening/check";
import type { ScreeningDeps } from "@/screening/deps";
import type { LoadedLists } from "@/watchlists/runtime";
import { inMemoryListContext } from "../../helpers/lists";
import { makeTenant } from "../../helpers/tenants";

/**
 * The database keeps an Idempotency-Key's row until it has expired by SQLite's own clock (migration
 * 0014). A Clock ahead of it (a test's, or the system clock stepped between a request's start and its
 * commit) saw the key expired, screened again and failed with 500 inserting it anew: a key live by
 * either clock is replayed.
 */
let ctx: AppContext;
let lists: LoadedLists<MatchIndex>;
let clockMs = Date.now();
const meta = { actor: { type: "cli" as const, id: "test" }, correlationId: "c" };

beforeEach(async () => {
  ({ ctx, lists } = await inMemoryListContext({ now: () => new Date(clockMs) }));
});
afterEach(() => ctx.db.close());

test("a key expired by a clock ahead of the database's, not by the database's, replays rather than failing", async () => {
  const tenant = makeTenant(ctx);
  const deps: ScreeningDeps = { ...ctx, lists: () => lists, announce: () => undefined };
  clockMs = Date.now();
  const first = await checkScreening(deps, { tenantId: tenant.tenant.id, input: { fullName: "Jane Roe" }, idempotencyKey: "k", meta });
  clockMs = Date.now() + 25 * 3_600_000;
  const second = await checkScreening(deps, { tenantId: tenant.tenant.id, input: { fullName: "Jane Roe" }, idempotencyKey: "k", meta });
  expect(second.record.id).toBe(first.record.id);
  expect(second.replayed).toBe(true);
  const used = ctx.db.sqlite.query<{ used: number }, []>("SELECT sum(used) AS used FROM usage_counters").get()?.used;
  expect(used).toBe(1);
});
