import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, ENV_SETTINGS, loadConfig } from "@/config";

/** Config precedence and failure messages: defaults < JSON file < AML_* environment < flags. */
const dir = mkdtempSync(join(tmpdir(), "aml-config-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

function configError(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error("expected a ConfigError");
}

describe("precedence", () => {
  test("built-in defaults with nothing set", () => {
    const config = loadConfig({ env: {} });
    expect(config).toMatchObject({
      host: "127.0.0.1",
      port: 8080,
      dataDir: "./data",
      logLevel: "info",
      maxJsonBodyBytes: 4 * 1024 * 1024,
      auditExportCap: 50_000,
      oidc: { audience: "aml-api", rolesClaim: "roles", tenantClaim: "tenant_id" },
      webhooks: { timeoutMs: 5_000, allowPrivateNetworks: [] },
      idlePollMs: 1,
      keepAliveTimeoutSeconds: 75,
      durability: "checkpoint",
    });
    expect(config.oidc.issuer).toBeUndefined();
  });

  test("the idle-poll window: a fraction of a millisecond or 0 to sleep at once; negative or above 100 ms is refused", () => {
    expect(loadConfig({ env: { AML_IDLE_POLL_MS: "0.5" } }).idlePollMs).toBe(0.5);
    expect(loadConfig({ env: { AML_IDLE_POLL_MS: "0" } }).idlePollMs).toBe(0);
    expect(configError(() => loadConfig({ env: { AML_IDLE_POLL_MS: "-1" } }))).toMatch(/- idlePollMs: /);
    expect(configError(() => loadConfig({ env: { AML_IDLE_POLL_MS: "250" } }))).toMatch(/- idlePollMs: /);
  });

  test("durability: checkpoint (default) or commit; anything else is refused", () => {
    expect(loadConfig({ env: { AML_DURABILITY: "commit" } }).durability).toBe("commit");
    expect(configError(() => loadConfig({ env: { AML_DURABILITY: "full" } }))).toMatch(/- durability: /);
  });

  test("the keep-alive idle timeout: whole seconds from 1 to 255 (Bun's range)", () => {
    expect(loadConfig({ env: { AML_KEEP_ALIVE_TIMEOUT_SECONDS: "120" } }).keepAliveTimeoutSeconds).toBe(120);
    expect(configError(() => loadConfig({ env: { AML_KEEP_ALIVE_TIMEOUT_SECONDS: "0" } }))).toMatch(/- keepAliveTimeoutSeconds: /);
    expect(configError(() => loadConfig({ env: { AML_KEEP_ALIVE_TIMEOUT_SECONDS: "256" } }))).toMatch(/- keepAliveTimeoutSeconds: /);
    expect(configError(() => loadConfig({ env: { AML_KEEP_ALIVE_TIMEOUT_SECONDS: "1.5" } }))).toMatch(/- keepAliveTimeoutSeconds: /);
  });

  test("file beats defaults, env beats file, flags beat env", () => {
    const configFile = file("layers.json", JSON.stringify({ port: 9001, host: "0.0.0.0", logLevel: "warn", dataDir: "/srv/file" }));
    const env = { AML_PORT: "9002", AML_LOG_LEVEL: "debug" };
    const config = loadConfig({ env, configFile, flags: { port: "9003" } });
    expect(config.port).toBe(9003);
    expect(config.logLevel).toBe("debug");
    expect(config.host).toBe("0.0.0.0");
    expect(config.dataDir).toBe("/srv/file");
    expect(config.maxUploadBytes).toBe(128 * 1024 * 1024);
  });

  test("AML_CONFIG names the file when no explicit path is given; an explicit path wins", () => {
    const fromEnv = file("env-named.json", JSON.stringify({ auditExportCap: 10 }));
    const explicit = file("explicit.json", JSON.stringify({ auditExportCap: 20 }));
    expect(loadConfig({ env: { AML_CONFIG: fromEnv } }).auditExportCap).toBe(10);
    expect(loadConfig({ env: { AML_CONFIG: fromEnv }, configFile: explicit }).auditExportCap).toBe(20);
  });

  test("nested sections merge key by key across layers", () => {
    const configFile = file("nested.json", JSON.stringify({ oidc: { issuer: "https://idp.example.com/realms/aml", audience: "from-file" } }));
    const config = loadConfig({ env: { AML_OIDC_AUDIENCE: "from-env", AML_OIDC_ROLES_CLAIM: "realm_access.roles" }, configFile });
    expect(config.oidc).toMatchObject({
      issuer: "https://idp.example.com/realms/aml",
      audience: "from-env",
      rolesClaim: "realm_access.roles",
      tenantClaim: "tenant_id",
    });
  });

  test("an undefined flag does not erase a lower layer", () => {
    expect(loadConfig({ env: { AML_PORT: "7000" }, flags: { port: undefined, host: undefined } }).port).toBe(7000);
  });

  test("list settings split on commas and drop blanks", () => {
    const config = loadConfig({ env: { AML_WEBHOOK_ALLOW_PRIVATE: " 10.0.0.0/8, ,hooks.corp.internal ," } });
    expect(config.webhooks.allowPrivateNetworks).toEqual(["10.0.0.0/8", "hooks.corp.internal"]);
  });

  test("every allow-list entry must be one the URL policy can match: a typo stops loading, naming it", () => {
    const good = "127.0.0.1, 10.0.0.0/8, fd00::/8, ::1, hooks.corp.internal, hooks.corp., 192.168.1.0/24, aml_receiver, 127.1, bücher.internal";
    expect(loadConfig({ env: { AML_WEBHOOK_ALLOW_PRIVATE: good } }).webhooks.allowPrivateNetworks).toHaveLength(10);
    for (const [entry, problem] of [
      ["10.0.0.0/99", "prefix length that is not a whole number from 0 to 32"],
      ["fd00::/129", "from 0 to 128"],
      ["10.0.0.0/8/8", "more than one /"],
      ["hooks.corp/24", "must be an IP address"],
      ["[::1]", "without brackets"],
      ["*.corp.internal", "is not a host name"],
      ["garbage!", "is not a host name"],
      ["http://10.0.0.1/", "more than one /"],
      ["256.1.1.1", "is not a host name"],
      ["127.0.0.1:8080", "is not a host name"],
      ["ops@hooks.corp", "is not a host name"],
    ] as const) {
      let message = "";
      try {
        loadConfig({ env: { AML_WEBHOOK_ALLOW_PRIVATE: `127.0.0.1,${entry}` } });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(`webhooks.allowPrivateNetworks.1: ${JSON.stringify(entry)}`);
      expect(message).toContain(problem);
    }
  });

  test.each(Object.keys(ENV_SETTINGS))("%s lands on a real setting of the schema", (name) => {
    // Whatever the value, the variable must be known and map onto a path the strict schema accepts.
    let message = "";
    try {
      loadConfig({ env: { [name]: "1" } });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toContain("Unknown environment setting");
    expect(message).not.toMatch(/unrecognized key/i);
  });

  test("the CLI's remote-mode variables are not config settings and are not errors", () => {
    expect(() => loadConfig({ env: { AML_REMOTE: "https://aml.example", AML_TOKEN: "t", AML_CLIENT_SECRET: "s" } })).not.toThrow();
  });

  test("the result is frozen all the way down", () => {
    const config = loadConfig({ env: { AML_WEBHOOK_ALLOW_PRIVATE: "10.0.0.0/8" } });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.oidc)).toBe(true);
    expect(Object.isFrozen(config.webhooks)).toBe(true);
    expect(Object.isFrozen(config.webhooks.allowPrivateNetworks)).toBe(true);
    expect(() => (config.webhooks.allowPrivateNetworks as string[]).push("0.0.0.0/0")).toThrow();
  });
});

describe("failures name the problem", () => {
  test("an unknown AML_ variable is refused and the known ones are listed", () => {
    const message = configError(() => loadConfig({ env: { AML_PROT: "8080", AML_PORT: "8080", OTHER_VAR: "x" } }));
    expect(message).toContain("Unknown environment setting(s): AML_PROT.");
    expect(message).toContain("AML_PORT");
    expect(message).not.toContain("OTHER_VAR");
  });

  test.each([
    ["not a number", "eighty"],
    ["out of range", "70000"],
    ["negative", "-1"],
    ["fractional", "80.5"],
  ])("an invalid port (%s) is reported by its setting name", (_case, port) => {
    const message = configError(() => loadConfig({ env: { AML_PORT: port } }));
    expect(message).toStartWith("Invalid configuration:");
    expect(message).toMatch(/^ {2}- port: /m);
  });

  test("several invalid values are all reported at once", () => {
    const message = configError(() => loadConfig({ env: { AML_LOG_LEVEL: "loud", AML_AUDIT_EXPORT_CAP: "0", AML_OIDC_ISSUER: "not a url" } }));
    expect(message).toMatch(/- logLevel: /);
    expect(message).toMatch(/- auditExportCap: /);
    expect(message).toMatch(/- oidc\.issuer: /);
  });

  test("a config file with invalid JSON", () => {
    const path = file("broken.json", '{ "port": 8080,, }');
    expect(configError(() => loadConfig({ env: {}, configFile: path }))).toContain(`Config file ${path} is not valid JSON`);
  });

  test.each([
    ["an array", "[1, 2]"],
    ["null", "null"],
    ["a string", '"port=8080"'],
  ])("a config file holding %s", (_case, content) => {
    const path = file(`shape-${content.length}.json`, content);
    expect(configError(() => loadConfig({ env: {}, configFile: path }))).toBe(`Config file ${path} must hold a JSON object`);
  });

  test("a missing config file", () => {
    const path = join(dir, "absent.json");
    expect(configError(() => loadConfig({ env: {}, configFile: path }))).toBe(`Config file not found: ${path}`);
  });

  test("an unknown key in the file is refused rather than ignored", () => {
    const path = file("typo.json", JSON.stringify({ prot: 8080, oidc: { issur: "https://idp.example.com" } }));
    const message = configError(() => loadConfig({ env: {}, configFile: path }));
    expect(message).toContain("prot");
    expect(message).toContain("issur");
  });
});
