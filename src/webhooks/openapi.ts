import { WEBHOOK_PAYLOAD_SCHEMA } from "./response-schemas";
import { DEFAULT_RETRY_DELAYS_MS } from "./schedule";
import { WEBHOOK_USER_AGENT } from "./send";

/**
 * The requests the appliance sends to a tenant's receiver, as an OpenAPI 3.1 `webhooks` entry: a
 * client generated from /openapi.json gets the receiver's side too (the body's type, the headers),
 * and the explorer shows it beside the routes. docs/webhooks.md has the reference verifiers.
 * monitoring.alert is left out until this version raises it.
 */

const header = (name: string, description: string, schema: Record<string, unknown>) => ({ name, in: "header", required: true, description, schema });

/** The longest a delivery stays in retry: the caps' sum (half of it at the least). */
const WINDOW_MS = DEFAULT_RETRY_DELAYS_MS.reduce((sum, cap) => sum + cap, 0);

/** A wait as the description reads it: "10 s", "2 min", "8 h", "29 h 51 min" (minutes rounded). */
function formatDuration(ms: number): string {
  if (ms < 60_000) return `${ms / 1000} s`;
  const minutes = Math.round(ms / 60_000);
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return [hours > 0 ? `${hours} h` : "", rest > 0 ? `${rest} min` : ""].filter(Boolean).join(" ");
}

const DESCRIPTION = `Sent to the tenant's webhookUrl when a screening finishes: POST /v1/screenings/check, POST /v1/screenings/{id}/rescreen, and each successful row of POST /v1/screenings/bulk (none for a failed row or an idempotent replay). The body never carries a subject's or a matched entity's name.

**Verify before trusting it**: compute HMAC-SHA256 over \`{X-AML-Timestamp}.{raw body}\` (the exact bytes received, before any JSON parsing) with the tenant's signing secret (the whole \`whsec_…\` string, shown once at onboarding), hex-encode it in lowercase, prefix \`sha256=\`, and compare with X-AML-Signature in constant time. Reject a timestamp more than 300 seconds from your clock. docs/webhooks.md has reference verifiers in TypeScript and Python, and \`aml webhook verify\` checks a captured delivery.

**Answer quickly**: any 2xx within the timeout (AML_WEBHOOK_TIMEOUT_MS, default 5 s, resolving your name included) delivers it; do slow work after answering. Any other status (redirects are not followed), a connection error or no answer in time is a failed attempt, retried after waits drawn from [cap / 2, cap] for caps of ${DEFAULT_RETRY_DELAYS_MS.map(formatDuration).join(", ")}: ${DEFAULT_RETRY_DELAYS_MS.length + 1} attempts, between ${formatDuration(WINDOW_MS / 2)} and ${formatDuration(WINDOW_MS)} in all. After the last one the delivery is dead, visible in GET /v1/webhooks/deliveries and redeliverable.

**Delivered at least once**: a delivery can arrive more than once (a retry after an answer that was lost, a redelivery, a stop mid-attempt); de-duplicate on X-AML-Delivery. Deliveries are not ordered: use createdAt.`;

export const WEBHOOK_OPENAPI = {
  "screening.completed": {
    post: {
      summary: "screening.completed: a screening finished (sent by the appliance to your receiver)",
      description: DESCRIPTION,
      tags: ["Webhooks"],
      security: [],
      parameters: [
        header("X-AML-Event", "The event type, also the body's event", { type: "string", enum: ["screening.completed"] }),
        header("X-AML-Delivery", "The delivery's id: the same on every attempt and redelivery of this event. De-duplicate on it", { type: "string", format: "uuid" }),
        header("X-AML-Attempt", "The attempt's number within its series, from 1", { type: "string", pattern: "^[1-9][0-9]*$" }),
        header("X-AML-Timestamp", "Unix seconds at signing, bound into the signature; fresh on every attempt", { type: "string", pattern: "^[0-9]+$" }),
        header("X-AML-Signature", "sha256= and the lowercase hex HMAC-SHA256 of {X-AML-Timestamp}.{raw body} under the tenant's whsec_ secret", {
          type: "string",
          pattern: "^sha256=[0-9a-f]{64}$",
        }),
        header("User-Agent", "Identifies the appliance's sender", { type: "string", enum: [WEBHOOK_USER_AGENT] }),
      ],
      requestBody: { required: true, content: { "application/json": { schema: WEBHOOK_PAYLOAD_SCHEMA } } },
      responses: {
        "2XX": { description: "Delivered. The body of the answer is ignored." },
        default: { description: "Any other status, or no answer within the timeout: a failed attempt, retried as described above." },
      },
    },
  },
} as const;
