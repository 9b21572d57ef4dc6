import type { Command } from "commander";
import { setQuota } from "@/tenants/quota";
import { getUsage } from "@/usage/quota";
import type { Tenant } from "@/tenants/schemas";
import { cliMeta, globalOptions, withContext } from "../context";
import { allowsRemote, remoteCall, remoteTarget } from "../remote";
import { remoteTenant } from "./tenant";
import { printJson, printRecord } from "../output";
import { parseQuotaFlag } from "./tenant";

export function registerQuota(program: Command): void {
  const quota = program.command("quota").description("Set a tenant's monthly screening quota");
  allowsRemote(quota.command("set <tenant> <limit>"))
    .description('Set the monthly quota to a whole number, or "unlimited" to clear it')
    .action(async (tenant: string, limit: string, _options: unknown, command: Command) => {
      const body = { monthlyScreeningQuota: parseQuotaFlag(limit) ?? null };
      const updated = remoteTarget(command)
        ? await remoteCall<Tenant>(command, "PUT", `/v1/tenants/${(await remoteTenant(command, tenant)).id}/quota`, body)
        : await withContext(command, (ctx) => {
            const result = setQuota(ctx, tenant, body, cliMeta());
            return { ...result, usedThisMonth: getUsage(ctx.db, result.id, ctx.clock.now()).used };
          });
      const result = { tenant: updated.slug, monthlyScreeningQuota: updated.monthlyScreeningQuota };
      if (globalOptions(command).json) printJson({ ...result, ...("usedThisMonth" in updated ? { usedThisMonth: updated.usedThisMonth } : {}) });
      else
        printRecord({
          tenant: updated.slug,
          quota: updated.monthlyScreeningQuota ?? "unlimited",
          ...("usedThisMonth" in updated ? { usedThisMonth: updated.usedThisMonth } : {}),
        });
    });
}
