import type { Command } from "commander";
import { SYSTEM_CHAIN } from "@/audit/chain";
import { type AuditVerification, auditChainKeys, verifyAuditChain } from "@/audit/verify";
import type { Db } from "@/storage/db";
import { getTenant, listTenants } from "@/tenants/get";
import type { Tenant } from "@/tenants/schemas";
import { withContext } from "../context";
import { USAGE_EXIT, usageErrorsExit2 } from "../exit-codes";
import { printJson, printRecord, printTable } from "../output";

/** Exit code when a verified chain is broken (0 when every verified chain is intact, 2 on a usage error). */
export const BROKEN_CHAIN_EXIT = 3;

interface VerifyOptions {
  system?: boolean;
  all?: boolean;
}

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
  usageErrorsExit2(audit.command("verify [tenant]"))
    .description(
      "Recompute audit hash chains: one tenant's (by id or slug), the system chain (--system: list imports) or every chain (--all); exits 3 when a chain is broken, 2 on a usage error",
    )
    .option("--system", "verify the system chain (appliance-wide events: list imports) instead of a tenant's")
    .option("--all", "verify the system chain and every tenant's chain, suspended tenants included; one result per chain")
    .action((ref: string | undefined, options: VerifyOptions, command: Command) => {
      // Before the context: a usage error needs no data folder.
      usageCheck(command, ref, options);
      return withContext(command, (ctx, json) => {
        if (options.all) return verifyAll(ctx.db, json);
        if (options.system) return report(json, { chain: SYSTEM_CHAIN, ...verifyAuditChain(ctx.db, SYSTEM_CHAIN) });
        // A tenant is always looked up by id or slug, never taken as a chain key: a tenant whose slug is
        // "system" gets its own chain here, and only --system reads the system chain.
        const tenant = getTenant(ctx.db, ref ?? "");
        return report(json, { tenant: tenant.slug, ...verifyAuditChain(ctx.db, tenant.id) });
      });
    });
}

/** Exactly one of: a tenant, --system, --all. Anything else is commander's usage error, exit 2. */
function usageCheck(command: Command, ref: string | undefined, options: VerifyOptions): void {
  const fail = (message: string) => command.error(`error: ${message}`, { exitCode: USAGE_EXIT, code: "aml.audit.usage" });
  if (options.system && options.all) fail(`--all already includes the system chain: give --system or --all, not both. Use ${FORMS}.`);
  if (ref !== undefined && (options.system || options.all)) {
    fail(`give a tenant or ${options.all ? "--all" : "--system"}, not both. Use ${FORMS}.`);
  }
  if (ref === undefined && !options.system && !options.all) fail(`say which chain to verify: ${FORMS}.`);
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
function verifyAll(db: Db, json: boolean): void {
  const tenants = listTenants(db);
  const known = new Set([SYSTEM_CHAIN, ...tenants.map((t) => t.id)]);
  const results: ChainResult[] = [
    { chain: SYSTEM_CHAIN, tenant: null, tenantStatus: null, ...verifyAuditChain(db, SYSTEM_CHAIN) },
    ...tenants.map((t) => ({ chain: t.id, tenant: t.slug, tenantStatus: t.status, ...verifyAuditChain(db, t.id) })),
    ...auditChainKeys(db)
      .filter((key) => !known.has(key))
      .map((key) => ({ chain: key, tenant: null, tenantStatus: null, ...verifyAuditChain(db, key) })),
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
