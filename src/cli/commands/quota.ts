import type { Command } from "commander";
import { setQuota } from "@/tenants/quota";
import { getUsage } from "@/usage/quota";
import { cliMeta, withContext } from "../context";
import { printJson, printRecord } from "../output";
import { parseQuotaFlag } from "./tenant";

export function registerQuota(program: Command): void {
  const quota = program.command("quota").description("Set a tenant's monthly screening quota");
  quota
    .command("set <tenant> <limit>")
    .description('Set the monthly quota to a whole number, or "unlimited" to clear it')
    .action((tenant: string, limit: string, _options: unknown, command: Command) =>
      withContext(command, (ctx, json) => {
        const updated = setQuota(ctx, tenant, { monthlyScreeningQuota: parseQuotaFlag(limit) ?? null }, cliMeta());
        const usage = getUsage(ctx.db, updated.id, ctx.clock.now());
        const result = { tenant: updated.slug, monthlyScreeningQuota: updated.monthlyScreeningQuota, usage };
        if (json) printJson(result);
        else printRecord({ tenant: updated.slug, quota: updated.monthlyScreeningQuota ?? "unlimited", usedThisMonth: usage.used });
      }),
    );
}
