import { expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { startTestServer } from "../helpers/server";

/**
 * A keep-alive connection as a proxy holds it: one socket, a request, a long pause, another request.
 * Resolves with the status line of each answer, or "closed" once the server has closed the socket.
 */
function keptAlive(url: string): { send(): Promise<string>; closed: Promise<void>; end(): void } {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect({ host: hostname, port: Number(port) });
  let waiting: ((line: string) => void) | null = null;
  let buffered = "";
  let isClosed = false;
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  void closed.then(() => {
    isClosed = true;
    waiting?.("closed");
  });
  // A write to a socket the server closed fails; the answer is then "closed", not an exception.
  socket.on("error", () => undefined);
  socket.on("data", (chunk) => {
    buffered += chunk.toString("latin1");
    // /healthz answers a small JSON body; the status line is all the test reads.
    const end = buffered.indexOf("\r\n");
    if (end >= 0 && waiting) {
      const line = buffered.slice(0, end);
      buffered = "";
      const done = waiting;
      waiting = null;
      done(line);
    }
  });
  return {
    send: () =>
      new Promise<string>((resolve) => {
        if (isClosed) return resolve("closed");
        waiting = resolve;
        socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
      }),
    closed,
    end: () => socket.destroy(),
  };
}

test("an idle keep-alive connection stays open past Bun's 10 s default, so a proxy's reuse of it is answered", async () => {
  const server = await startTestServer();
  const connection = keptAlive(server.url);
  try {
    expect(await connection.send()).toBe("HTTP/1.1 200 OK");
    // Bun's own default (10 s, swept every 4 s) closes the connection by 14 s.
    await Bun.sleep(15_000);
    expect(await connection.send()).toBe("HTTP/1.1 200 OK");
  } finally {
    connection.end();
    await server.close();
  }
}, 30_000);

test("keepAliveTimeoutSeconds closes an idle connection: 1 s closes it within the 4 s sweep", async () => {
  const server = await startTestServer({ flags: { keepAliveTimeoutSeconds: 1 } });
  const connection = keptAlive(server.url);
  try {
    expect(await connection.send()).toBe("HTTP/1.1 200 OK");
    const started = performance.now();
    await connection.closed;
    expect(performance.now() - started).toBeLessThan(9_000);
  } finally {
    connection.end();
    await server.close();
  }
}, 30_000);
