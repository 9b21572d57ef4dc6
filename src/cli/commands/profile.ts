import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { ServiceError } from "@/errors";
import { profileWithPairs } from "@/profiles/pairs";
import { getRiskProfile, type RiskProfile, setRiskProfile } from "@/profiles/store";
import { usageError } from "../exit-codes";
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
    .option(
      "--json-file <file>",
      "JSON object of options, or a whole profile as `aml --json profile show` prints it (its options are used, so a shown profile can be edited and set again, or copied to another tenant); omitted fields take their defaults",
    )
    .option("--set <key=value>", "one option, e.g. threshold=0.9, lists=OFAC,UN, maxDataAgeDays=null, homeCountry=GB", collect)
    .action(async (tenant: string, options: SetOptions, command: Command) => {
      const pairs = options.set ?? [];
      if ((options.jsonFile === undefined) === (pairs.length === 0)) {
        usageError(command, "Give either --json-file or one or more --set key=value.");
      }
      const body = (current: () => Promise<RiskProfile>) =>
        options.jsonFile !== undefined ? Promise.resolve(optionsOf(readJson(options.jsonFile))) : current().then((p) => profileWithPairs(p.options, pairs));
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

/** The keys `aml --json profile show` (GET …/risk-profile) prints around the options. */
const SHOWN_PROFILE_KEYS = new Set(["tenantId", "isDefault", "updatedAt", "updatedBy", "options"]);

/**
 * The options of a file that holds a whole shown profile, else the file as it is (an options object,
 * checked by the same validation as the API's body). An operator saving `profile show --json`,
 * editing it and setting it again was told "tenantId is not a known field; options is not …".
 */
function optionsOf(file: unknown): unknown {
  if (file === null || typeof file !== "object" || Array.isArray(file)) return file;
  const keys = Object.keys(file);
  const shown = keys.includes("options") && keys.every((k) => SHOWN_PROFILE_KEYS.has(k));
  return shown ? (file as { options: unknown }).options : file;
}

function print(command: Command, profile: RiskProfile): void {
  if (globalOptions(command).json) {
    printJson(profile);
    return;
  }
  printRecord({ tenant: profile.tenantId, isDefault: profile.isDefault, updatedAt: profile.updatedAt, updatedBy: profile.updatedBy, ...profile.options });
}
