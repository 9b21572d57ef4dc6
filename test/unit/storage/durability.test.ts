import { expect, test } from "bun:test";
import { call } from "../../helpers/api";
import { startTestServer, type TestServer } from "../../helpers/server";
import { makeTenant } from "../../helpers/tenants";

/** PRAGMA synchronous reads 1 for NORMAL and 2 for FULL. */
const synchronous = (server: TestServer) =>
  server.ctx.db.sqlite.query<{ synchronous: number }, []>("PRAGMA synchronous").get()?.synchronous;

test("durability sets the server connection's synchronous: checkpoint is NORMAL, commit is FULL", async () => {
  const byDefault = await startTestServer();
  const everyCommit = await startTestServer({ env: { AML_DURABILITY: "commit" } });
  try {
    expect(synchronous(byDefault)).toBe(1);
    expect(synchronous(everyCommit)).toBe(2);
    // The server works under FULL: a tenant onboarded on its connection answers with its new key.
    const tenant = makeTenant(everyCommit.ctx);
    const usage = await call(everyCommit.url, "/v1/usage", { key: tenant.apiKey });
    expect(usage.status).toBe(200);
  } finally {
    await byDefault.close();
    await everyCommit.close();
  }
});
