import type { Command } from "commander";
import { issueApiKey, listApiKeys, revokeApiKey } from "@/tenants/keys";
import { cliMeta, withContext } from "../context";
import { printJson, printRecord, printTable } from "../output";

export function registerKey(program: Command): void {
  const key = program.command("key").description("Issue, revoke and list a tenant's API keys");

  key
    .command("issue <tenant>")
    .description("Issue a new API key (printed once)")
    .option("--label <label>", "what the key is for")
    .option("--role <role>", "compliance_analyst (default) or auditor (read only)")
    .action((tenant: string, options: { label?: string; role?: string }, command: Command) =>
      withContext(command, (ctx, json) => {
        const issued = issueApiKey(ctx, { tenant, label: options.label ?? null, role: options.role }, cliMeta());
        if (json) {
          printJson({ ...issued.key, apiKey: issued.apiKey });
          return;
        }
        printRecord({ ...issued.key });
        console.log(`\nAPI key (shown once, store it now): ${issued.apiKey}`);
      }),
    );

  key
    .command("revoke <tenant> <keyId>")
    .description("Revoke an API key; it stops working on the next request")
    .action((tenant: string, keyId: string, _options: unknown, command: Command) =>
      withContext(command, (ctx, json) => {
        const revoked = revokeApiKey(ctx, { tenant, keyId }, cliMeta());
        if (json) printJson(revoked);
        else printRecord({ ...revoked });
      }),
    );

  key
    .command("list <tenant>")
    .description("List a tenant's API keys (never the secrets)")
    .action((tenant: string, _options: unknown, command: Command) =>
      withContext(command, (ctx, json) => {
        const keys = listApiKeys(ctx, tenant);
        if (json) printJson(keys);
        else printTable(keys.map((k) => ({ ...k })), ["keyId", "label", "role", "hint", "createdAt", "revokedAt"]);
      }),
    );
}
