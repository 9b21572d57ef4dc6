import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { signWebhook } from "@/webhooks/sign";

/**
 * The node:http receiver printed in docs/webhooks.md, run as copied: the verifier block saved as
 * verify-aml-webhook.ts, the receiver block as receiver.ts, started on its own. It must answer 2xx
 * only after the event is stored, 401 to a bad signature, and non-2xx when it cannot store.
 */
const REPO = join(import.meta.dir, "..", "..");
const DOC = readFileSync(join(REPO, "docs", "webhooks.md"), "utf8");
const root = mkdtempSync(join(tmpdir(), "aml-docs-receiver-"));
const running: Subprocess[] = [];
afterAll(() => {
  for (const proc of running) proc.kill();
  rmSync(root, { recursive: true, force: true });
});

function codeBlock(marker: string): string {
  const blocks = [...DOC.matchAll(/```ts\n([\s\S]*?)```/g)].filter((m) => m[1]?.includes(marker));
  if (blocks.length !== 1 || !blocks[0]?.[1]) throw new Error(`expected one ts block containing ${marker}`);
  return blocks[0][1];
}

const secret = "whsec_docsReceiverSecret0123456789abcdefg";
const body = '{"event":"screening.completed","screeningId":"0190e9b4-6c1e-7d2a-9a51-3f0c8e2b1a77","userReference":"Zoë ✓"}';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Writes both blocks into a fresh folder; `runtime` then starts receiver.ts there. */
function writeExample(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "verify-aml-webhook.ts"), codeBlock("export function verifyAmlWebhook"));
  writeFileSync(join(dir, "receiver.ts"), codeBlock("createServer("));
  return dir;
}

/** Starts receiver.ts in `dir` with `runtime` on `port`, with AML_WEBHOOK_SECRET set to `secretValue` unless undefined. */
function spawnExample(runtime: string[], dir: string, port: number, secretValue: string | undefined): Subprocess {
  const proc = Bun.spawn([...runtime, "receiver.ts"], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", PORT: String(port), ...(secretValue === undefined ? {} : { AML_WEBHOOK_SECRET: secretValue }) },
    stdout: "pipe",
    stderr: "pipe",
  });
  running.push(proc);
  return proc;
}

/** Writes both blocks into a fresh folder and starts the receiver with `runtime`; resolves once it listens. */
async function startExample(runtime: string[], name: string): Promise<{ dir: string; url: string; proc: Subprocess }> {
  const dir = writeExample(name);
  const port = await freePort();
  const proc = spawnExample(runtime, dir, port, secret);
  const url = `http://127.0.0.1:${port}/hooks/aml`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`receiver exited ${proc.exitCode}: ${await new Response(proc.stderr as ReadableStream).text()}`);
    try {
      await fetch(url, { method: "POST" });
      return { dir, url, proc };
    } catch {
      if (Date.now() > deadline) throw new Error("receiver did not start");
      await Bun.sleep(50);
    }
  }
}

function post(url: string, deliveryId: string, signature?: string): Promise<Response> {
  const ts = Math.floor(Date.now() / 1000);
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-aml-delivery": deliveryId,
      "x-aml-timestamp": String(ts),
      "x-aml-signature": signature ?? signWebhook(secret, ts, body),
    },
    body,
  });
}

const tsx = join(REPO, "node_modules", ".bin", "tsx");
const runtimes: Array<[string, string[], boolean]> = [
  ["bun", [process.execPath], true],
  ["node with tsx", [tsx], existsSync(tsx) && Bun.which("node") !== null],
];

describe.each(runtimes)("the node:http receiver example under %s", (name, runtime, available) => {
  test.skipIf(!available)("stores a verified event before answering 204, refuses a bad signature, and answers 503 when it cannot store", async () => {
    const { dir, url } = await startExample(runtime, name.replaceAll(" ", "-"));
    const log = join(dir, "aml-events.jsonl");

    const ok = await post(url, "delivery-1");
    expect(ok.status).toBe(204);
    // Stored by the time the 2xx arrives.
    expect(readFileSync(log, "utf8")).toBe(`${JSON.stringify({ deliveryId: "delivery-1", event: JSON.parse(body) })}\n`);

    const forged = await post(url, "delivery-2", `sha256=${"0".repeat(64)}`);
    expect(forged.status).toBe(401);
    expect(readFileSync(log, "utf8").split("\n").filter(Boolean)).toHaveLength(1);

    // The queue cannot store (its file is a folder now): no 2xx, so the appliance would retry.
    rmSync(log);
    mkdirSync(log);
    const unstored = await post(url, "delivery-3");
    expect(unstored.status).toBe(503);
  }, 30_000);

  test.skipIf(!available).each([
    ["unset", undefined],
    ["empty", ""],
    ["a bare prefix", "whsec_"],
    ["not base62", "whsec_abc-def"],
  ])("refuses to start when the secret is %s, so it never verifies with a key that is not a whsec_ value", async (label, value) => {
    const dir = writeExample(`${name.replaceAll(" ", "-")}-secret-${label.replaceAll(" ", "-")}`);
    const port = await freePort();
    const proc = spawnExample(runtime, dir, port, value);
    expect(await proc.exited).not.toBe(0);
    expect(await new Response(proc.stderr as ReadableStream).text()).toContain("AML_WEBHOOK_SECRET");
    expect(await fetch(`http://127.0.0.1:${port}/hooks/aml`, { method: "POST" }).then((r) => r.status, () => "refused")).toBe("refused");
  }, 30_000);
});
