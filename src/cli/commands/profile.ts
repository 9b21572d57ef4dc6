import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { ServiceError } from "@/errors";
import { profileWithPairs } from "@/profiles/pairs";
import { getRiskProfile, type RiskProfile, setRiskProfile } from "@/profiles/store";
import { cliMeta, globalOptions, withContext } from "../context";
import { printJson, printRecord } from "../output";
import { allowsRemote, remoteCall, remoteTarget } from "../remote";
import { remoteTenant } from "./tenant";

interface SetOptions {
  jsonFile?: string;
  set?: string[];
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerProfile(program: Command): void {
  const profile = program.command("profile").description("Show or set a tenant's risk profile (matching options)");

  allowsRemote(profile.command("show <tenant>"))
    .description("Print the tenant's risk profile (the defaults while none was set)")
    .action(async (tenant: string, _options: unknown, command: Command) => {
      const shown = remoteTarget(command)
        ? await remoteCall<RiskProfile>(command, "GET", `/v1/tenants/${(await remoteTenant(command, tenant)).id}/risk-profile`)
        : await withContext(command, (ctx) => getRiskProfile(ctx.db, tenant));
      print(command, shown);
    });

  allowsRemote(profile.command("set <tenant>"))
    .description("Replace the profile from --json-file, or change fields with --set key=value (repeatable; merged onto the current profile)")
    .option("--json-file <file>", "JSON object of options; omitted fields take their defaults")
    .option("--set <key=value>", "one option, e.g. threshold=0.9, lists=OFAC,UN, maxDataAgeDays=null, homeCountry=GB", collect)
    .action(async (tenant: string, options: SetOptions, command: Command) => {
      const pairs = options.set ?? [];
      if ((options.jsonFile === undefined) === (pairs.length === 0)) {
        throw new ServiceError("INVALID_INPUT", "Give either --json-file or one or more --set key=value.");
      }
      const body = (current: () => Promise<RiskProfile>) =>
        options.jsonFile !== undefined ? Promise.resolve(readJson(options.jsonFile)) : current().then((p) => profileWithPairs(p.options, pairs));
      let updated: RiskProfile;
      if (remoteTarget(command)) {
        const path = `/v1/tenants/${(await remoteTenant(command, tenant)).id}/risk-profile`;
        updated = await remoteCall<RiskProfile>(command, "PUT", path, await body(() => remoteCall<RiskProfile>(command, "GET", path)));
      } else {
        updated = await withContext(command, async (ctx) =>
          setRiskProfile(ctx, tenant, await body(async () => getRiskProfile(ctx.db, tenant)), cliMeta()),
        );
      }
      print(command, updated);
    });
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as unknown;
  } catch (error) {
    throw new ServiceError("INVALID_INPUT", `Cannot read ${file} as JSON: ${(error as Error).message}`);
  }
}

function print(command: Command, profile: RiskProfile): void {
  if (globalOptions(command).json) {
    printJson(profile);
    return;
  }
  printRecord({ tenant: profile.tenantId, isDefault: profile.isDefault, updatedAt: profile.updatedAt, updatedBy: profile.updatedBy, ...profile.options });
}
