import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signWebhook } from "@/webhooks/sign";
import { verifyWebhook } from "@/webhooks/verify";

/** The receiver verifiers printed in docs/webhooks.md are run here, so the docs cannot drift from the signer. */
const DOC = readFileSync(join(import.meta.dir, "..", "..", "docs", "webhooks.md"), "utf8");
const dir = mkdtempSync(join(tmpdir(), "aml-webhook-docs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function codeBlock(language: string, marker: string): string {
  const blocks = [...DOC.matchAll(/```(\w+)\n([\s\S]*?)```/g)].filter((m) => m[1] === language && m[2]?.includes(marker));
  if (blocks.length !== 1 || !blocks[0]?.[2]) throw new Error(`expected one ${language} block containing ${marker}`);
  return blocks[0][2];
}

const secret = "whsec_docsTestSecret0123456789abcdefghijkl";
const body = '{"event":"screening.completed","screeningId":"0190e9b4-6c1e-7d2a-9a51-3f0c8e2b1a77","userReference":"Zoë ✓"}';
const ts = 1_750_000_000;
const cases = [
  { name: "valid", timestamp: String(ts), signature: signWebhook(secret, ts, body), body, now: ts + 10, expected: true },
  { name: "tampered", timestamp: String(ts), signature: signWebhook(secret, ts, body), body: body.replace("Zoë", "Zoe"), now: ts, expected: false },
  { name: "stale", timestamp: String(ts), signature: signWebhook(secret, ts, body), body, now: ts + 301, expected: false },
  { name: "future", timestamp: String(ts), signature: signWebhook(secret, ts, body), body, now: ts - 301, expected: false },
  { name: "uppercase", timestamp: String(ts), signature: signWebhook(secret, ts, body).toUpperCase(), body, now: ts, expected: false },
  { name: "no timestamp", timestamp: "", signature: signWebhook(secret, ts, body), body, now: ts, expected: false },
  // An HTTP parser strips a header's surrounding whitespace; a value that still has it is malformed.
  { name: "spaced timestamp", timestamp: ` ${ts} `, signature: signWebhook(secret, ts, body), body, now: ts, expected: false },
  { name: "spaced signature", timestamp: String(ts), signature: ` ${signWebhook(secret, ts, body)} `, body, now: ts, expected: false },
];

/** Keys a forger knows or an operator mistypes, each with a signature made with that very key. */
const wrongSecrets = ["", secret.slice("whsec_".length)].map((key) => ({ secret: key, timestamp: String(ts), signature: signWebhook(key, ts, body), body, now: ts }));

describe("reference verifiers in docs/webhooks.md", () => {
  test("the appliance's own verifier (aml webhook verify) decides every case as they do", () => {
    for (const c of cases) {
      const result = verifyWebhook({ secret, timestamp: c.timestamp, signature: c.signature, rawBody: c.body, now: new Date(c.now * 1000) });
      expect([c.name, result.ok]).toEqual([c.name, c.expected]);
    }
  });

  test("TypeScript/Node verifier agrees with the appliance's signer", async () => {
    const file = join(dir, "verify.ts");
    writeFileSync(file, codeBlock("ts", "export function verifyAmlWebhook"));
    const { verifyAmlWebhook } = (await import(file)) as {
      verifyAmlWebhook: (s: string, t: string, sig: string, raw: Buffer, tol?: number, nowMs?: number) => boolean;
    };
    for (const c of cases) {
      expect([c.name, verifyAmlWebhook(secret, c.timestamp, c.signature, Buffer.from(c.body), 300, c.now * 1000)]).toEqual([c.name, c.expected]);
    }
    // A signature anyone can compute with an empty or mistyped key is never accepted: the verifier refuses the key.
    for (const wrong of [...wrongSecrets.map((w) => w.secret), `Webhook signing secret: ${secret}`]) {
      expect(() => verifyAmlWebhook(wrong, String(ts), signWebhook(wrong, ts, body), Buffer.from(body), 300, ts * 1000)).toThrow("whsec_");
    }
  });

  test.skipIf(!Bun.which("python3"))("Python verifier agrees with the appliance's signer", async () => {
    const file = join(dir, "verify.py");
    const driver = `
import json, sys
cases = json.loads(sys.stdin.read())
results = [verify_aml_webhook(${JSON.stringify(secret)}, c["timestamp"], c["signature"], c["body"].encode("utf-8"), now=c["now"]) for c in cases]
for wrong in ${JSON.stringify(wrongSecrets)}:
    try:
        verify_aml_webhook(wrong["secret"], wrong["timestamp"], wrong["signature"], wrong["body"].encode("utf-8"), now=wrong["now"])
        results.append("accepted")
    except ValueError:
        results.append("refused")
print(json.dumps(results))
`;
    writeFileSync(file, codeBlock("python", "def verify_aml_webhook") + driver);
    const proc = Bun.spawn(["python3", file], { stdin: new Blob([JSON.stringify(cases)]), stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual([...cases.map((c) => c.expected), ...wrongSecrets.map(() => "refused")]);
  });
});
