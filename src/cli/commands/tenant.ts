import type { Command } from "commander";
import { invalidInput, ServiceError } from "@/errors";
import { utcMonth } from "@/lib/clock";
import { checkNewTenant, onboardTenant } from "@/tenants/create";
import { getTenant, listTenants } from "@/tenants/get";
import { usageError } from "../exit-codes";
import { cliMeta, globalOptions, withContext } from "../context";
import { allowsRemote, remoteCall, remoteTarget } from "../remote";
import { MAX_MONTHLY_QUOTA, type Tenant } from "@/tenants/schemas";
import { setTenantStatus, type TenantStatus } from "@/tenants/status";
import { rotateWebhookSecret, setWebhookUrl } from "@/tenants/webhook";
import { getUsage } from "@/usage/quota";
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
  // A ServiceError, like every other bad input: exit code 2 and one line, for `tenant create --quota` and `quota set`.
  if (!/^\d+$/.test(value.trim())) {
    throw invalidInput(`quota must be a whole number from 0 to ${MAX_MONTHLY_QUOTA.toLocaleString("en-US")}, or "unlimited" (got ${JSON.stringify(value)})`);
  }
  return Number(value);
}

export function registerTenant(program: Command): void {
  const tenant = program.command("tenant").description("Create and inspect tenants, and manage their webhook receiver");

  allowsRemote(tenant.command("create"))
    .description("Onboard a tenant; prints its API key and webhook signing secret exactly once")
    .requiredOption("--name <name>", "display name")
    .requiredOption("--slug <slug>", "short unique id (lowercase letters, digits, hyphens)")
    .requiredOption("--contact-email <email>", "compliance contact")
    .requiredOption("--plan <plan>", "plan name (free text)")
    .requiredOption("--lists <lists>", "enabled lists, comma-separated: OFAC,EU,UK,UN,WIKIDATA")
    .option("--webhook-url <url>", "webhook receiver (http or https); a private host needs the server's allow-list (--config / AML_WEBHOOK_ALLOW_PRIVATE)")
    .option("--quota <n>", 'monthly screening quota, or "unlimited" (default)')
    .action(async (options: CreateOptions, command: Command) => {
      const input = {
        name: options.name,
        slug: options.slug,
        contactEmail: options.contactEmail,
        plan: options.plan,
        enabledLists: options.lists
          .split(",")
          .map((s) => s.trim().toUpperCase())
          .filter(Boolean),
        ...(options.webhookUrl ? { webhookUrl: options.webhookUrl } : {}),
        ...(options.quota === undefined ? {} : { monthlyScreeningQuota: parseQuotaFlag(options.quota) }),
      };
      const created = remoteTarget(command)
        ? await remoteCall<CreatedOutput>(command, "POST", "/v1/tenants", input)
        : await withContext(
            command,
            async (ctx) => {
              const result = await onboardTenant(ctx, input, cliMeta());
              return { ...result.tenant, apiKey: result.apiKey, apiKeyId: result.apiKeyId, webhookSigningSecret: result.webhookSigningSecret };
            },
            { setsUp: true, check: (config) => checkNewTenant(config, input) },
          );
      if (globalOptions(command).json) {
        printJson(created);
        return;
      }
      const { apiKey, apiKeyId: _keyId, webhookSigningSecret, ...tenant } = created;
      printRecord(tenant);
      console.log("");
      console.log(`API key (shown once, store it now):                ${apiKey}`);
      // A remote appliance of an earlier version issues none without a webhook URL.
      if (webhookSigningSecret) console.log(`Webhook signing secret (shown once, store it now): ${webhookSigningSecret}`);
    });

  allowsRemote(tenant.command("list"))
    .description("List tenants")
    .action(async (_options: unknown, command: Command) => {
      const tenants = remoteTarget(command)
        ? (await remoteCall<{ items: Tenant[] }>(command, "GET", "/v1/tenants")).items
        : await withContext(command, (ctx) => listTenants(ctx.db));
      if (globalOptions(command).json) printJson(tenants);
      else
        printTable(
          tenants.map((t) => ({ ...t, quota: t.monthlyScreeningQuota ?? "unlimited" })),
          ["id", "slug", "name", "plan", "enabledLists", "quota", "status", "createdAt"],
        );
    });

  allowsRemote(tenant.command("show <tenant>"))
    .description(
      "Show one tenant (by id or slug) with this month's screening usage: used, limit, remaining (UTC calendar month). The usage is shown only on the appliance's host: the admin API does not report it, so --remote shows the tenant alone",
    )
    .action(async (ref: string, _options: unknown, command: Command) => {
      const json = globalOptions(command).json === true;
      if (remoteTarget(command)) {
        const found = await remoteTenant(command, ref);
        if (json) printJson(found);
        else printRecord({ ...found, usage: "(not reported by the admin API: run aml tenant show on the appliance's host)" });
        return;
      }
      const { tenant: found, usage } = await withContext(command, (ctx) => {
        const tenant = getTenant(ctx.db, ref);
        const now = ctx.clock.now();
        return { tenant, usage: { period: utcMonth(now), ...getUsage(ctx.db, tenant.id, now) } };
      });
      if (json) printJson({ ...found, usageThisMonth: usage });
      else
        printRecord({
          ...found,
          usagePeriod: `${usage.period} (UTC)`,
          used: usage.used,
          limit: usage.limit ?? "unlimited",
          remaining: usage.unlimited ? "unlimited" : usage.remaining,
        });
    });

  registerTenantStatus(tenant, "suspend", "suspended", "Suspend a tenant: every API key and token of it is refused (403) from the next request on; nothing is deleted or revoked");
  registerTenantStatus(tenant, "resume", "active", "Resume a suspended tenant: its unrevoked keys and tokens work again");
  registerTenantWebhook(tenant);
}

/** `aml tenant suspend|resume <tenant> --reason <text>` (POST /v1/tenants/{id}/suspend|resume). */
function registerTenantStatus(tenant: Command, verb: "suspend" | "resume", status: TenantStatus, description: string): void {
  allowsRemote(tenant.command(`${verb} <tenant>`))
    .description(description)
    .requiredOption("--reason <text>", "why, recorded in the tenant's audit chain (1-500 characters)")
    .action(async (ref: string, options: { reason: string }, command: Command) => {
      const body = { reason: options.reason };
      const updated = remoteTarget(command)
        ? await remoteCall<Tenant>(command, "POST", `/v1/tenants/${(await remoteTenant(command, ref)).id}/${verb}`, body)
        : await withContext(command, (ctx) => setTenantStatus(ctx, ref, status, body, cliMeta()));
      if (globalOptions(command).json) printJson(updated);
      else printRecord({ tenant: updated.slug, status: updated.status, updatedAt: updated.updatedAt });
    });
}

type WithSecret = Tenant & { webhookSigningSecret: string | null };

/** `aml tenant webhook set|rotate-secret`: the receiver URL and its signing secret (PUT /v1/tenants/{id}/webhook, POST …/webhook/secret). */
function registerTenantWebhook(tenant: Command): void {
  const webhook = tenant.command("webhook").description("Set or clear a tenant's webhook URL, or rotate its signing secret");

  allowsRemote(webhook.command("set <tenant> [url]"))
    .description("Set the webhook URL (or --clear it); a tenant that had no signing secret gets one, printed once")
    .option("--clear", "remove the URL: no new events are queued for the tenant")
    .action(async (ref: string, url: string | undefined, options: { clear?: boolean }, command: Command) => {
      if ((url === undefined) === (options.clear !== true)) usageError(command, "Give either a webhook URL or --clear.");
      const body = { webhookUrl: options.clear ? null : (url ?? null) };
      const updated = remoteTarget(command)
        ? await remoteCall<WithSecret>(command, "PUT", `/v1/tenants/${(await remoteTenant(command, ref)).id}/webhook`, body)
        : await withContext(command, async (ctx) => {
            const result = await setWebhookUrl(ctx, ref, body, cliMeta());
            return { ...result.tenant, webhookSigningSecret: result.webhookSigningSecret };
          });
      printWithSecret(command, updated);
    });

  allowsRemote(webhook.command("rotate-secret <tenant>"))
    .description("Replace the webhook signing secret; the new one is printed once and signs every delivery from now on")
    .action(async (ref: string, _options: unknown, command: Command) => {
      const rotated = remoteTarget(command)
        ? await remoteCall<WithSecret>(command, "POST", `/v1/tenants/${(await remoteTenant(command, ref)).id}/webhook/secret`)
        : await withContext(command, (ctx) => {
            const result = rotateWebhookSecret(ctx, ref, cliMeta());
            return { ...result.tenant, webhookSigningSecret: result.webhookSigningSecret };
          });
      printWithSecret(command, rotated);
    });
}

function printWithSecret(command: Command, result: WithSecret): void {
  if (globalOptions(command).json) {
    printJson(result);
    return;
  }
  printRecord({ tenant: result.slug, webhookUrl: result.webhookUrl ?? "(none)", updatedAt: result.updatedAt });
  if (result.webhookSigningSecret) {
    console.log("");
    console.log(`Webhook signing secret (shown once, store it now): ${result.webhookSigningSecret}`);
  }
}

type CreatedOutput = Tenant & { apiKey: string; apiKeyId: string; webhookSigningSecret: string | null };

/** Remote lookup by id or slug: the admin API addresses tenants by id, so a slug is found in the list. */
export async function remoteTenant(command: Command, ref: string): Promise<Tenant> {
  const { items } = await remoteCall<{ items: Tenant[] }>(command, "GET", "/v1/tenants");
  const found = items.find((t) => t.id === ref || t.slug === ref);
  if (!found) throw new ServiceError("NOT_FOUND", `Tenant ${ref} not found`);
  return found;
}
