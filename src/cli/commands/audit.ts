import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { SYSTEM_CHAIN } from "@/audit/chain";
import { type AuditVerification, auditChainKeys, type ChainAnchor, SHA256_HEX, verifyAuditChain } from "@/audit/verify";
import type { Db } from "@/storage/db";
import { getTenant, listTenants } from "@/tenants/get";
import type { Tenant } from "@/tenants/schemas";
import { withContext } from "../context";
import { usageError } from "../exit-codes";
import { printJson, printRecord, printTable } from "../output";

/** Exit code when a verified chain is broken (0 when every verified chain is intact, 2 on a usage error). */
export const BROKEN_CHAIN_EXIT = 3;

interface VerifyOptions {
  system?: boolean;
  all?: boolean;
  expect?: string;
  against?: string;
}

/**
 * What the chains are held to: `expected`, --expect's anchor for the one chain named; or `byChain`,
 * --against's anchors by chain key (the tenant's id, or "system").
 */
interface Anchors {
  readonly expected: ChainAnchor | null;
  readonly byChain: ReadonlyMap<string, ChainAnchor>;
}

const anchorOf = (anchors: Anchors, chain: string): ChainAnchor | null => anchors.expected ?? anchors.byChain.get(chain) ?? null;

/** One line of `aml audit verify --all`: which chain, whose, and what its walk found. */
export interface ChainResult extends AuditVerification {
  /** The chain's key: "system", or the tenant's id. */
  chain: string;
  /** The tenant's slug; null for the system chain and for a chain whose tenant no longer exists. */
  tenant: string | null;
  tenantStatus: Tenant["status"] | null;
}

const FORMS = "`aml audit verify <tenant>` (id or slug), `aml audit verify --system` or `aml audit verify --all`";

export function registerAudit(program: Command): void {
  const audit = program.command("audit").description("Audit log tools");
  audit
    .command("verify [tenant]")
    .description(
      "Recompute audit hash chains: one tenant's (by id or slug), the system chain (--system: list imports) or every chain (--all); exits 3 when a chain is broken, 2 on a usage error",
    )
    .option("--system", "verify the system chain (appliance-wide events: list imports) instead of a tenant's")
    .option("--all", "verify the system chain and every tenant's chain, suspended tenants included; one result per chain")
    .option("--expect <sequence:hash>", "with a tenant or --system: the chain must still hold this entry, an earlier run's entriesChecked and lastHash (else truncated or anchor_mismatch)")
    .option("--against <file>", "the --json output of an earlier run (one chain or --all): every chain it found intact must still hold its entriesChecked and lastHash")
    .action((ref: string | undefined, options: VerifyOptions, command: Command) => {
      // Before the context: a usage error needs no data folder.
      usageCheck(command, ref, options);
      const anchors = readAnchors(command, options);
      return withContext(command, (ctx, json) => {
        if (options.all) return verifyAll(ctx.db, json, anchors);
        const verify = (chain: string) => verifyAuditChain(ctx.db, chain, anchorOf(anchors, chain));
        // The same object as one of --all's chains (the README says so): tenantStatus too.
        if (options.system) return report(json, { chain: SYSTEM_CHAIN, tenant: null, tenantStatus: null, ...verify(SYSTEM_CHAIN) });
        // A tenant is always looked up by id or slug, never taken as a chain key: a tenant whose slug is
        // "system" gets its own chain here, and only --system reads the system chain.
        const tenant = getTenant(ctx.db, ref ?? "");
        return report(json, { chain: tenant.id, tenant: tenant.slug, tenantStatus: tenant.status, ...verify(tenant.id) });
      });
    });
}

/** Exactly one of: a tenant, --system, --all. Anything else is commander's usage error, exit 2. */
function usageCheck(command: Command, ref: string | undefined, options: VerifyOptions): void {
  const fail = (message: string) => usageError(command, message);
  if (options.system && options.all) fail(`--all already includes the system chain: give --system or --all, not both. Use ${FORMS}.`);
  if (ref !== undefined && (options.system || options.all)) {
    fail(`give a tenant or ${options.all ? "--all" : "--system"}, not both. Use ${FORMS}.`);
  }
  if (ref === undefined && !options.system && !options.all) fail(`say which chain to verify: ${FORMS}.`);
  if (options.expect !== undefined && options.against !== undefined) fail("give --expect or --against, not both.");
  if (options.expect !== undefined && options.all) fail("--expect names one chain's entry: with --all, give --against <file> (an earlier run's --json output).");
}

/**
 * The anchors of --expect or --against; a value that cannot be read is a usage error (exit 2), since
 * verifying without the anchor the operator meant would report "intact" for the wrong question.
 */
function readAnchors(command: Command, options: VerifyOptions): Anchors {
  const fail = (message: string) => usageError(command, message);
  if (options.expect !== undefined) {
    const parts = options.expect.trim().split(":");
    const [sequenceText = "", hash = ""] = parts;
    const sequence = /^\d{1,15}$/.test(sequenceText) ? Number(sequenceText) : 0;
    if (parts.length !== 2 || sequence < 1 || !SHA256_HEX.test(hash)) {
      fail(`--expect must be <sequence>:<hash>, an earlier run's entriesChecked and lastHash (e.g. 42:3f5a…, 64 hex digits); got "${options.expect}".`);
    }
    return { expected: { sequence, hash }, byChain: new Map() };
  }
  if (options.against === undefined) return { expected: null, byChain: new Map() };
  let text: string;
  try {
    text = readFileSync(options.against, "utf8");
  } catch (error) {
    return fail(`--against: cannot read ${options.against}: ${(error as Error).message}`);
  }
  const byChain = anchorsFromRun(text);
  if (byChain === null) return fail(`--against: ${options.against} is not the --json output of \`aml audit verify\` (one chain, or --all).`);
  return { expected: null, byChain };
}

/**
 * The anchors an earlier `--json` run gives: for each chain it found intact and not empty, its
 * entriesChecked and lastHash. A chain it found broken gives none (there is no good point to hold
 * it to). Null when the text is not such an output.
 */
export function anchorsFromRun(text: string): Map<string, ChainAnchor> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const record = (value: unknown): Record<string, unknown> | null =>
    typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  const top = record(parsed);
  if (top === null) return null;
  const runs = Array.isArray(top.chains) ? top.chains.map(record) : [top];
  const anchors = new Map<string, ChainAnchor>();
  for (const run of runs) {
    if (run === null || typeof run.chain !== "string" || typeof run.intact !== "boolean" || !Number.isSafeInteger(run.entriesChecked)) return null;
    const sequence = run.entriesChecked as number;
    if (!run.intact || sequence < 1) continue;
    // What --expect refuses is unreadable here too: an anchor of a sequence no entry has, or a hash
    // no entry can have, would be checked against nothing, or give a verdict on a typo.
    if (typeof run.lastHash !== "string" || !SHA256_HEX.test(run.lastHash)) return null;
    anchors.set(run.chain, { sequence, hash: run.lastHash });
  }
  return anchors;
}

function report(json: boolean, result: AuditVerification & Record<string, unknown>): void {
  if (json) printJson(result);
  else printRecord(result);
  if (!result.intact) process.exitCode = BROKEN_CHAIN_EXIT;
}

/**
 * The system chain first, then every tenant (suspended ones too) in creation order, then any chain in
 * the log whose tenant row is gone: the log outlives what it describes, and such a chain is still checked.
 */
function verifyAll(db: Db, json: boolean, anchors: Anchors): void {
  const tenants = listTenants(db);
  const known = new Set([SYSTEM_CHAIN, ...tenants.map((t) => t.id)]);
  const verify = (chain: string) => verifyAuditChain(db, chain, anchorOf(anchors, chain));
  const orphans = auditChainKeys(db).filter((key) => !known.has(key));
  for (const key of orphans) known.add(key);
  const results: ChainResult[] = [
    { chain: SYSTEM_CHAIN, tenant: null, tenantStatus: null, ...verify(SYSTEM_CHAIN) },
    ...tenants.map((t) => ({ chain: t.id, tenant: t.slug, tenantStatus: t.status, ...verify(t.id) })),
    ...orphans.map((key) => ({ chain: key, tenant: null, tenantStatus: null, ...verify(key) })),
    // A chain the earlier run held that has no entries and no tenant now: removed whole, so truncated.
    ...[...anchors.byChain.keys()].filter((key) => !known.has(key)).map((key) => ({ chain: key, tenant: null, tenantStatus: null, ...verify(key) })),
  ];
  const broken = results.filter((r) => !r.intact).length;
  if (json) {
    printJson({ intact: broken === 0, chainsChecked: results.length, brokenChains: broken, chains: results });
  } else {
    printTable(
      results.map((r) => ({
        ...r,
        tenant: r.chain === SYSTEM_CHAIN ? "-" : (r.tenant ?? "(no tenant)"),
        status: r.tenantStatus,
        entries: r.entriesChecked,
      })),
      ["chain", "tenant", "status", "intact", "entries", "firstBrokenEntryId", "reason", "lastHash"],
    );
    console.log("");
    console.log(broken === 0 ? `${results.length} chains checked: all intact` : `${broken} of ${results.length} chains broken`);
  }
  if (broken > 0) process.exitCode = BROKEN_CHAIN_EXIT;
}
