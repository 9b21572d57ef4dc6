import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCli } from "../helpers/cli";
import { type CliFolder, cliFolder } from "../helpers/cli-folder";
import { makeTenant } from "../helpers/tenants";

/** Who a CLI audit entry names: the person behind `sudo -u aml` first, never "unknown" when the uid is known. */
let folder: CliFolder;
beforeAll(() => {
  folder = cliFolder("aml-actor-");
});
afterAll(() => {
  folder.close();
});

async function actorOfKeyIssue(env: Record<string, string>): Promise<string | undefined> {
  const { tenant } = makeTenant(folder.ctx);
  const result = await runCli(["key", "issue", tenant.slug], { dataDir: folder.dataDir, env });
  expect(result.code).toBe(0);
  return folder.ctx.db.sqlite
    .query<{ actor: string }, [string]>("SELECT actor_type || ':' || actor_id AS actor FROM audit_log WHERE chain = ? AND action = 'api_key.issue' ORDER BY seq DESC")
    .get(tenant.id)?.actor;
}

describe("the CLI operator in audit entries", () => {
  test.concurrent.each([
    ["SUDO_USER before the service account", { SUDO_USER: "alice", LOGNAME: "aml", USER: "aml" }, "cli:alice"],
    ["LOGNAME before USER", { LOGNAME: "bob", USER: "aml" }, "cli:bob"],
    ["USER alone", { USER: "carol" }, "cli:carol"],
    ["the uid when no name is known", {}, `cli:uid:${process.getuid?.()}`],
    // An ESC sequence or a line break would rewrite the terminal listing the entry, or forge a CSV line.
    ["control characters shown as U+FFFD", { SUDO_USER: "evil\nforged,line\u001b[2J" }, "cli:evil\uFFFDforged,line\uFFFD[2J"],
  ])("%s", async (_label, env, expected) => {
    expect(await actorOfKeyIssue(env)).toBe(expected);
  });
});
