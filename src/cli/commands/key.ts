import type { Command } from "commander";
import { issueApiKey, listApiKeys, revokeApiKey } from "@/tenants/keys";
import type { ApiKeyInfo } from "@/tenants/keys";
import { cliMeta, globalOptions, withContext } from "../context";
import { allowsRemote, remoteCall, remoteTarget } from "../remote";
import { remoteTenant } from "./tenant";
import { printJson, printRecord, printTable } from "../output";

export function registerKey(program: Command): void {
  const key = program.command("key").description("Issue, revoke and list a tenant's API keys");

  allowsRemote(key.command("issue <tenant>"))
    .description("Issue a new API key (printed once)")
    .option("--label <label>", "what the key is for")
    .option("--role <role>", "compliance_analyst (default) or auditor (read only)")
    .action(async (tenant: string, options: { label?: string; role?: string }, command: Command) => {
      let issued: ApiKeyInfo & { apiKey: string };
      if (remoteTarget(command)) {
        const id = (await remoteTenant(command, tenant)).id;
        const query = new URLSearchParams();
        if (options.label) query.set("label", options.label);
        if (options.role) query.set("role", options.role);
        issued = await remoteCall(command, "POST", `/v1/tenants/${id}/api-keys?${query}`);
      } else {
        issued = await withContext(command, (ctx) => {
          const result = issueApiKey(ctx, { tenant, label: options.label ?? null, role: options.role }, cliMeta());
          return { ...result.key, apiKey: result.apiKey };
        });
      }
      if (globalOptions(command).json) {
        printJson(issued);
        return;
      }
      const { apiKey, ...info } = issued;
      printRecord(info);
      console.log(`\nAPI key (shown once, store it now): ${apiKey}`);
    });

  allowsRemote(key.command("revoke <tenant> <keyId>"))
    .description("Revoke an API key; it stops working on the next request")
    .action(async (tenant: string, keyId: string, _options: unknown, command: Command) => {
      const revoked = remoteTarget(command)
        ? await remoteCall<ApiKeyInfo>(command, "DELETE", `/v1/tenants/${(await remoteTenant(command, tenant)).id}/api-keys/${keyId}`)
        : await withContext(command, (ctx) => revokeApiKey(ctx, { tenant, keyId }, cliMeta()));
      if (globalOptions(command).json) printJson(revoked);
      else printRecord({ ...revoked });
    });

  allowsRemote(key.command("list <tenant>"))
    .description("List a tenant's API keys (never the secrets)")
    .action(async (tenant: string, _options: unknown, command: Command) => {
      const keys = remoteTarget(command)
        ? (await remoteCall<{ items: ApiKeyInfo[] }>(command, "GET", `/v1/tenants/${(await remoteTenant(command, tenant)).id}/api-keys`)).items
        : await withContext(command, (ctx) => listApiKeys(ctx, tenant));
      if (globalOptions(command).json) printJson(keys);
      else printTable(keys.map((k) => ({ ...k })), ["keyId", "label", "role", "hint", "createdAt", "revokedAt"]);
    });
}
