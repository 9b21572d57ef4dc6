import { WEBHOOK_SECRET_RE } from "@/auth/api-key-format";
import { constantTimeEqual } from "@/lib/hash";
import { signWebhook } from "./sign";

export const DEFAULT_TOLERANCE_SECONDS = 300;

export type VerifyFailure =
  | "missing_secret"
  | "malformed_secret"
  | "malformed_timestamp"
  | "malformed_signature"
  | "timestamp_too_old"
  | "timestamp_in_future"
  | "signature_mismatch";

export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailure };

export interface VerifyWebhookInput {
  /** The tenant's signing secret (whsec_...). */
  secret: string;
  /** X-AML-Timestamp as received. */
  timestamp: string | number;
  /** X-AML-Signature as received. */
  signature: string;
  /** The request body exactly as received, before any JSON parsing. */
  rawBody: string;
  toleranceSeconds?: number;
  now?: Date;
}

// Canonical decimal only, so the number we sign over is the exact text the sender signed.
const TIMESTAMP_RE = /^(0|[1-9]\d{0,11})$/;
const SIGNATURE_RE = /^sha256=[0-9a-f]{64}$/;

/**
 * The reference receiver-side check. The timestamp window bounds replays of a captured delivery;
 * the comparison is constant-time so response timing does not leak how much of a forgery matched.
 */
export function verifyWebhook(input: VerifyWebhookInput): VerifyResult {
  if (!input.secret) return { ok: false, reason: "missing_secret" };
  // A key that is not a whsec_ value (a pasted label, a stripped prefix) would only ever give
  // signature_mismatch, which reads as a tampered delivery; say what is wrong instead.
  if (!WEBHOOK_SECRET_RE.test(input.secret)) return { ok: false, reason: "malformed_secret" };
  // Not trimmed, as the verifiers in docs/webhooks.md do not: an HTTP parser has already removed a
  // header's surrounding whitespace, and the CLI must judge a capture as a receiver built from them would.
  const timestampText = String(input.timestamp);
  if (!TIMESTAMP_RE.test(timestampText)) return { ok: false, reason: "malformed_timestamp" };
  const { signature } = input;
  if (!SIGNATURE_RE.test(signature)) return { ok: false, reason: "malformed_signature" };

  const timestamp = Number(timestampText);
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = Math.floor((input.now ?? new Date()).getTime() / 1000);
  if (now - timestamp > tolerance) return { ok: false, reason: "timestamp_too_old" };
  if (timestamp - now > tolerance) return { ok: false, reason: "timestamp_in_future" };

  const expected = signWebhook(input.secret, timestamp, input.rawBody);
  return constantTimeEqual(expected, signature) ? { ok: true } : { ok: false, reason: "signature_mismatch" };
}
