import type { Command } from "commander";
import { verifyAuditChain } from "@/audit/verify";
import { getTenant } from "@/tenants/get";
import { withContext } from "../context";
import { printJson, printRecord } from "../output";

export function registerAudit(program: Command): void {
  const audit = program.command("audit").description("Audit log tools");
  audit
    .command("verify <tenant>")
    .description("Recompute a tenant's audit hash chain; exits 3 when it is broken")
    .action((ref: string, _options: unknown, command: Command) =>
      withContext(command, (ctx, json) => {
        const tenant = getTenant(ctx.db, ref);
        const result = verifyAuditChain(ctx.db, tenant.id);
        if (json) printJson({ tenant: tenant.slug, ...result });
        else printRecord({ tenant: tenant.slug, ...result });
        if (!result.intact) process.exitCode = 3;
      }),
    );
}
