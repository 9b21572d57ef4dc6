import { createHmac } from "node:crypto";
import { describe, expect, test } from "bun:test";
import { signWebhook } from "@/webhooks/sign";
import { verifyWebhook } from "@/webhooks/verify";

const secret = "whsec_0123456789abcdefghijABCDEFGHIJ0123456789";
const body = '{"event":"screening.completed","screeningId":"0190e9b4-0000-7000-8000-000000000001"}';
const ts = 1_750_000_000;
const now = new Date(ts * 1000);

describe("signWebhook", () => {
  test("is HMAC-SHA256 over {timestamp}.{rawBody}, lowercase hex, prefixed sha256=", () => {
    const expected = createHmac("sha256", secret).update(`${ts}.${body}`).digest("hex");
    expect(signWebhook(secret, ts, body)).toBe(`sha256=${expected}`);
    expect(signWebhook(secret, ts, body)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });
});

describe("verifyWebhook", () => {
  const signature = signWebhook(secret, ts, body);
  const valid = { secret, timestamp: String(ts), signature, rawBody: body, now };

  test("accepts a correct signature within the tolerance", () => {
    expect(verifyWebhook(valid)).toEqual({ ok: true });
    expect(verifyWebhook({ ...valid, timestamp: ts })).toEqual({ ok: true });
    expect(verifyWebhook({ ...valid, now: new Date((ts + 300) * 1000) })).toEqual({ ok: true });
    expect(verifyWebhook({ ...valid, now: new Date((ts - 300) * 1000) })).toEqual({ ok: true });
  });

  test("rejects a tampered body, even by one byte or a trailing newline", () => {
    expect(verifyWebhook({ ...valid, rawBody: body.replace("completed", "complete!") })).toEqual({ ok: false, reason: "signature_mismatch" });
    expect(verifyWebhook({ ...valid, rawBody: `${body}\n` })).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  test("rejects a wrong secret and a signature for another timestamp", () => {
    expect(verifyWebhook({ ...valid, secret: `${secret}x` })).toEqual({ ok: false, reason: "signature_mismatch" });
    expect(verifyWebhook({ ...valid, timestamp: String(ts + 1) })).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  test("rejects timestamps older or newer than 300 s by default, and honours a custom tolerance", () => {
    expect(verifyWebhook({ ...valid, now: new Date((ts + 301) * 1000) })).toEqual({ ok: false, reason: "timestamp_too_old" });
    expect(verifyWebhook({ ...valid, now: new Date((ts - 301) * 1000) })).toEqual({ ok: false, reason: "timestamp_in_future" });
    expect(verifyWebhook({ ...valid, now: new Date((ts + 3600) * 1000), toleranceSeconds: 7200 })).toEqual({ ok: true });
    expect(verifyWebhook({ ...valid, now: new Date((ts + 31) * 1000), toleranceSeconds: 30 })).toEqual({ ok: false, reason: "timestamp_too_old" });
  });

  test("an old capture re-sent with a fresh timestamp still fails: the timestamp is bound into the signature", () => {
    const replay = { ...valid, timestamp: String(ts + 10_000), now: new Date((ts + 10_000) * 1000) };
    expect(verifyWebhook(replay)).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  test("rejects malformed headers before computing anything", () => {
    for (const timestamp of ["", "abc", "12.5", "-1", "0123", "1e9", "99999999999999"]) {
      expect(verifyWebhook({ ...valid, timestamp })).toEqual({ ok: false, reason: "malformed_timestamp" });
    }
    const hex = signature.slice("sha256=".length);
    for (const bad of ["", hex, `sha1=${hex}`, `sha256=${hex.toUpperCase()}`, `sha256=${hex.slice(1)}`, `sha256=${hex}00`, `v1,${hex}`]) {
      expect(verifyWebhook({ ...valid, signature: bad })).toEqual({ ok: false, reason: "malformed_signature" });
    }
    expect(verifyWebhook({ ...valid, secret: "" })).toEqual({ ok: false, reason: "missing_secret" });
    // Even with a signature made with that very key: a key that is not a whsec_ value is refused as such.
    for (const key of [valid.secret.slice("whsec_".length), `Webhook signing secret: ${valid.secret}`, `${valid.secret}\n`, "whsec_"]) {
      expect(verifyWebhook({ ...valid, secret: key, signature: signWebhook(key, Number(valid.timestamp), valid.rawBody) })).toEqual({ ok: false, reason: "malformed_secret" });
    }
  });
});
