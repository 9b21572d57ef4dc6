import { hmacSha256Hex } from "@/lib/hash";

/** X-AML-Signature for a body: HMAC-SHA256 over `${timestamp}.${rawBody}`, lowercase hex, prefixed "sha256=". */
export function signWebhook(secret: string, timestamp: number, rawBody: string): string {
  return `sha256=${hmacSha256Hex(secret, `${timestamp}.${rawBody}`)}`;
}
