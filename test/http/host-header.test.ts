import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnServe } from "../helpers/cli";
import { type CliFolder, cliFolder } from "../helpers/cli-folder";
import { rawExchange } from "../helpers/raw-http";
import { makeTenant } from "../helpers/tenants";

/**
 * Requests a client library would never send but a probe, an old proxy or a container network does:
 * no Host at all (HTTP/1.0), and a Host shorter than Elysia's path search assumes ("aml", the name a
 * compose file or a Kubernetes service gives the appliance). The server runs as `aml serve` in its
 * own process with the access log on, as in production: a throw in the log hook stopped the process.
 */
describe("requests with no Host or a short one", () => {
  let folder: CliFolder;
  let server: { url: string; stop(): Promise<number> };
  let apiKey: string;

  beforeAll(async () => {
    folder = cliFolder();
    apiKey = makeTenant(folder.ctx).apiKey;
    server = await spawnServe(folder.dataDir, { AML_LOG_LEVEL: "info" }, ["--demo"]);
  });
  afterAll(async () => {
    await server.stop();
    folder.close();
  });

  test("an HTTP/1.0 request without a Host is answered, and the server keeps answering", async () => {
    const health = await rawExchange(server.url, ["GET /healthz HTTP/1.0"]);
    expect(health.status).toBe(200);
    const usage = await rawExchange(server.url, ["GET /v1/usage HTTP/1.0", `X-Api-Key: ${apiKey}`]);
    expect(usage.status).toBe(200);
    expect(JSON.parse(usage.body)).toMatchObject({ used: 0 });
    // The process is still there after the access log has described both.
    await Bun.sleep(100);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  for (const host of ["aml", "a", "ab:80", "aml:8080"]) {
    test(`Host: ${host} routes every path as it is written`, async () => {
      const usage = await rawExchange(server.url, ["GET /v1/usage HTTP/1.1", `Host: ${host}`, `X-Api-Key: ${apiKey}`, "Connection: close"]);
      expect(usage.status).toBe(200);
      expect(JSON.parse(usage.body)).toHaveProperty("used");

      const body = JSON.stringify({ fullName: "Ada Example" });
      const check = await rawExchange(
        server.url,
        [
          "POST /v1/screenings/check HTTP/1.1",
          `Host: ${host}`,
          `X-Api-Key: ${apiKey}`,
          "Content-Type: application/json",
          `Content-Length: ${Buffer.byteLength(body)}`,
          "Connection: close",
        ],
        body,
      );
      expect(check.status).toBe(200);
      expect(JSON.parse(check.body)).toMatchObject({ subject: { fullName: "Ada Example" } });

      // A chunked body is read through the rebuilt request, and one over the limit is refused with 413:
      // the refusal once never came (the connection hung with no answer).
      const chunked = (json: string) => {
        const bytes = Buffer.from(json);
        const chunks: string[] = [];
        for (let i = 0; i < bytes.length; i += 65_536) {
          const chunk = bytes.subarray(i, i + 65_536);
          chunks.push(`${chunk.length.toString(16)}\r\n${chunk.toString("latin1")}\r\n`);
        }
        return `${chunks.join("")}0\r\n\r\n`;
      };
      const chunkedHead = ["POST /v1/screenings/check HTTP/1.1", `Host: ${host}`, `X-Api-Key: ${apiKey}`, "Content-Type: application/json", "Transfer-Encoding: chunked", "Connection: close"];
      const small = await rawExchange(server.url, chunkedHead, chunked(JSON.stringify({ fullName: "Ada Example", userReference: "r".repeat(200) })));
      expect(small.status).toBe(200);
      expect(JSON.parse(small.body)).toMatchObject({ subject: { fullName: "Ada Example" } });
      const tooLarge = await rawExchange(server.url, chunkedHead, chunked(JSON.stringify({ fullName: "Ada Example", note: "x".repeat(5 * 1024 * 1024) })), 15_000);
      expect(tooLarge.status).toBe(413);
      expect(JSON.parse(tooLarge.body)).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });

      // A path with an extra leading segment is not the same route with it cut off.
      const prefixed = await rawExchange(server.url, ["GET /zz/v1/usage HTTP/1.1", `Host: ${host}`, `X-Api-Key: ${apiKey}`, "Connection: close"]);
      expect(prefixed.status).toBe(404);
      expect(JSON.parse(prefixed.body)).toMatchObject({ code: "ROUTE_NOT_FOUND", instance: "/zz/v1/usage" });
    });
  }
});
