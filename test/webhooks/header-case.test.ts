import { afterEach, describe, expect, test } from "bun:test";
import { createServer, type Server } from "node:net";
import { webhookExtension } from "@/webhooks/extension";
import { verifyWebhook } from "@/webhooks/verify";
import { startTestServer, type TestServer } from "../helpers/server";
import { makeTenant } from "../helpers/tenants";
import { enqueueEvents, FAST, serverFlags } from "./fixtures";

/**
 * A receiver that reads the request off the socket itself: a Request object (Bun.serve, node:http)
 * would hand the test header names already lowercased, hiding how they were sent.
 */
function startRawReceiver(): Promise<{ server: Server; url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((socket) => {
    let raw = "";
    socket.on("data", (chunk: Buffer) => {
      raw += chunk.toString("latin1");
      const end = raw.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(raw.slice(0, end))?.[1] ?? 0);
      if (raw.length < end + 4 + length) return;
      requests.push(raw);
      socket.end("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      resolve({ server, url: `http://127.0.0.1:${port}/hooks/aml`, requests });
    }),
  );
}

let appliance: TestServer | undefined;
let raw: Server | undefined;
afterEach(async () => {
  await appliance?.close();
  raw?.close();
  appliance = raw = undefined;
});

describe("delivery headers on the wire", () => {
  test("are spelled as in the spec, and the bytes sent verify", async () => {
    const receiver = await startRawReceiver();
    raw = receiver.server;
    const extension = webhookExtension(FAST);
    appliance = await startTestServer({ flags: serverFlags(), extensions: [extension] });
    const tenant = makeTenant(appliance.ctx, { webhookUrl: receiver.url });
    const [id] = enqueueEvents(appliance.ctx, tenant.tenant.id, 1);
    extension.wake();
    const deadline = Date.now() + 10_000;
    while (receiver.requests.length === 0 && Date.now() < deadline) await Bun.sleep(20);

    const request = receiver.requests[0] ?? "";
    const [head = "", body = ""] = request.split("\r\n\r\n");
    const lines = head.split("\r\n").slice(1);
    const names = lines.map((line) => line.slice(0, line.indexOf(":")));
    for (const name of ["Content-Type", "User-Agent", "X-AML-Event", "X-AML-Delivery", "X-AML-Attempt", "X-AML-Timestamp", "X-AML-Signature"]) {
      expect(names).toContain(name);
    }
    expect(names.filter((name) => name.toLowerCase().startsWith("x-aml-"))).toEqual(names.filter((name) => name.startsWith("X-AML-")));
    const value = (name: string) => lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2) ?? "";
    expect(value("X-AML-Delivery")).toBe(id ?? "");
    expect(value("X-AML-Event")).toBe("screening.completed");
    expect(value("X-AML-Attempt")).toBe("1");
    const verdict = verifyWebhook({
      secret: tenant.webhookSigningSecret ?? "",
      timestamp: value("X-AML-Timestamp"),
      signature: value("X-AML-Signature"),
      rawBody: body,
    });
    expect(verdict.ok).toBe(true);
  });
});
