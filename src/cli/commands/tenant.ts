import type { Command } from "commander";
import { createTenant } from "@/tenants/create";
import { getTenant, listTenants } from "@/tenants/get";
import { cliMeta, withContext } from "../context";
import { printJson, printRecord, printTable } from "../output";

interface CreateOptions {
  name: string;
  slug: string;
  contactEmail: string;
  plan: string;
  lists: string;
  webhookUrl?: string;
  quota?: string;
}

export function parseQuotaFlag(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value.trim().toLowerCase() === "unlimited") return null;
  if (!/^\d+$/.test(value.trim())) throw new Error(`--quota must be a whole number or "unlimited", got "${value}"`);
  return Number(value);
}

export function registerTenant(program: Command): void {
  const tenant = program.command("tenant").description("Create and inspect tenants");

  tenant
    .command("create")
    .description("Onboard a tenant; prints its API key and webhook signing secret exactly once")
    .requiredOption("--name <name>", "display name")
    .requiredOption("--slug <slug>", "short unique id (lowercase letters, digits, hyphens)")
    .requiredOption("--contact-email <email>", "compliance contact")
    .requiredOption("--plan <plan>", "plan name (free text)")
    .requiredOption("--lists <lists>", "enabled lists, comma-separated: OFAC,EU,UK,UN,WIKIDATA")
    .option("--webhook-url <url>", "webhook receiver (http or https)")
    .option("--quota <n>", 'monthly screening quota, or "unlimited" (default)')
    .action((options: CreateOptions, command: Command) =>
      withContext(command, (ctx, json) => {
        const created = createTenant(
          ctx,
          {
            name: options.name,
            slug: options.slug,
            contactEmail: options.contactEmail,
            plan: options.plan,
            enabledLists: options.lists
              .split(",")
              .map((s) => s.trim().toUpperCase())
              .filter(Boolean),
            webhookUrl: options.webhookUrl ?? null,
            monthlyScreeningQuota: parseQuotaFlag(options.quota),
          },
          cliMeta(),
        );
        if (json) {
          printJson({ ...created.tenant, apiKey: created.apiKey, apiKeyId: created.apiKeyId, webhookSigningSecret: created.webhookSigningSecret });
          return;
        }
        printRecord({ ...created.tenant });
        console.log("");
        console.log(`API key (shown once, store it now):             ${created.apiKey}`);
        if (created.webhookSigningSecret) {
          console.log(`Webhook signing secret (shown once, store it now): ${created.webhookSigningSecret}`);
        }
      }),
    );

  tenant
    .command("list")
    .description("List tenants")
    .action((_options: unknown, command: Command) =>
      withContext(command, (ctx, json) => {
        const tenants = listTenants(ctx.db);
        if (json) printJson(tenants);
        else
          printTable(
            tenants.map((t) => ({ ...t, quota: t.monthlyScreeningQuota ?? "unlimited" })),
            ["id", "slug", "name", "plan", "enabledLists", "quota", "status", "createdAt"],
          );
      }),
    );

  tenant
    .command("show <tenant>")
    .description("Show one tenant (by id or slug)")
    .action((ref: string, _options: unknown, command: Command) =>
      withContext(command, (ctx, json) => {
        const found = getTenant(ctx.db, ref);
        if (json) printJson(found);
        else printRecord({ ...found });
      }),
    );
}
