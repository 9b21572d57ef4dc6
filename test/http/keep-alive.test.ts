import { expect, test } from "bun:test";
import { keptAlive } from "../helpers/raw-http";
import { startTestServer } from "../helpers/server";

test("an idle keep-alive connection stays open past Bun's 10 s default, so a proxy's reuse of it is answered", async () => {
  const server = await startTestServer();
  const connection = keptAlive(server.url);
  try {
    expect(await connection.get("/healthz")).toBe("HTTP/1.1 200 OK");
    // Bun's own default (10 s, swept every 4 s) closes the connection by 14 s.
    await Bun.sleep(15_000);
    expect(await connection.get("/healthz")).toBe("HTTP/1.1 200 OK");
  } finally {
    connection.end();
    await server.close();
  }
}, 30_000);

test("keepAliveTimeoutSeconds closes an idle connection: 1 s closes it within the 4 s sweep", async () => {
  const server = await startTestServer({ flags: { keepAliveTimeoutSeconds: 1 } });
  const connection = keptAlive(server.url);
  try {
    expect(await connection.get("/healthz")).toBe("HTTP/1.1 200 OK");
    const started = performance.now();
    await connection.closed;
    expect(performance.now() - started).toBeLessThan(9_000);
  } finally {
    connection.end();
    await server.close();
  }
}, 30_000);
