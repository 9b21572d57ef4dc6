import { z } from "zod";
import { BODY_CORRELATION_ID as correlationId, instant as at, instantOrNull as atOrNull, schemaComponent } from "@/http/openapi";
import { Decision, RiskBand } from "@/screening/schemas";
import { PEP_TIERS, type PepTier, SOURCE_LISTS } from "@/watchlists/entity";
import { DELIVERY_STATUSES } from "./outbox-rows";
import { WEBHOOK_EVENTS } from "./payload";
import { BULK_REDELIVERY_CAP, BULK_REDELIVERY_STATUSES } from "./redeliver";

/**
 * Response shapes of the delivery-log routes, for the OpenAPI description only: responses are not
 * validated at run time (test/webhooks/deliveries-media.test.ts checks real answers against them).
 */

export const WebhookDeliveryResponse = z
  .object({
    id: z.uuid().describe("The delivery id, sent as X-AML-Delivery on every attempt and on a redelivery"),
    event: z.enum(WEBHOOK_EVENTS),
    screeningId: z.uuid(),
    status: z.enum(DELIVERY_STATUSES).describe("pending (queued or waiting for a retry), delivering (an attempt in flight), delivered or dead"),
    attemptCount: z.number().int().min(0).describe("Attempts made in the current series (a redelivery of a delivered or dead delivery starts a new series at 0)"),
    series: z.number().int().min(1).describe("1 for the original series, plus one per redelivery of a delivered or dead delivery"),
    lastStatusCode: z.number().int().nullable().describe("The receiver's HTTP status on the last attempt; null when it gave none"),
    lastError: z.string().nullable().describe("Why the last attempt failed; null after a success or before any attempt"),
    nextAttemptAt: atOrNull("When the next attempt is due; null unless pending"),
    createdAt: at("When the event was queued"),
    deliveredAt: atOrNull("When a 2xx was received; null otherwise"),
    deadAt: atOrNull("When the last allowed attempt failed; null otherwise"),
  })
  .describe("A webhook delivery: its state and last outcome. Never the signing secret.");

export const WebhookPayloadBody = z
  .object({
    event: z.enum(WEBHOOK_EVENTS).describe("The event type, also sent as X-AML-Event"),
    screeningId: z.uuid(),
    userReference: z.string().nullable().describe("The caller's reference; null when none was given. Never a subject's or an entity's name"),
    isMatch: z.boolean(),
    score: z.number().min(0).max(1),
    decision: Decision,
    riskScore: z.number().int().min(0).max(100),
    riskBand: RiskBand,
    createdAt: z.iso
      .datetime({ offset: true })
      .describe("When the screening was made, the screening's createdAt: an ISO 8601 date-time with offset (this version sends UTC, Z). Deliveries are not ordered: order events by it"),
    classification: z.enum(["sanctions", "pep", "adverse_media"]).nullable(),
    pepTiers: z.array(z.enum(PEP_TIERS as readonly PepTier[] as [PepTier, ...PepTier[]])),
    sourceLists: z.array(z.enum(SOURCE_LISTS)),
    matchCount: z.number().int().min(0),
    adverseMediaStatus: z.enum(["Skipped", "Ok", "Stale", "Unavailable"]),
    correlationId: z
      .string()
      .nullable()
      .describe("The correlation id of the request that created the screening: the screening's screeningCorrelationId (not its correlationId, which is the reading request's own); null when no request started it"),
  })
  .describe("The signed body, parsed (docs/webhooks.md, Body)");

const WebhookAttemptResponse = z.object({
  series: z.number().int().min(1),
  attempt: z.number().int().min(1).describe("Position in its series, from 1"),
  startedAt: at("When the attempt started"),
  durationMs: z.number().min(0),
  statusCode: z.number().int().nullable().describe("The receiver's HTTP status; null when it gave none (timeout, connection error, refused URL, an attempt cut short by a stop or crash)"),
  error: z.string().nullable(),
  url: z.string().nullable().describe("The URL posted to, or the tenant's URL the attempt failed before posting to (a name that did not resolve, an address the policy refused, a secret that cannot be unsealed), without its query string; null when the tenant has no URL or secret, and for an attempt cut short by a stop or crash"),
});

export const WebhookDeliveryDetailResponse = WebhookDeliveryResponse.extend({
  payload: WebhookPayloadBody,
  attempts: z.array(WebhookAttemptResponse).describe("Every attempt of every series, oldest first"),
  correlationId,
}).describe("A webhook delivery with its signed payload and every attempt.");

export const WebhookDeliveryPageResponse = z
  .object({
    items: z.array(WebhookDeliveryResponse),
    total: z.number().int().min(0).describe("Deliveries matching the filters"),
    skip: z.number().int().min(0),
    take: z.number().int().min(1),
    correlationId,
  })
  .describe("One page of the tenant's webhook deliveries, newest first.");

export const WebhookBulkRedeliveryResponse = z
  .object({
    redelivered: z.number().int().min(0).describe(`Deliveries redelivered by this call (at most ${BULK_REDELIVERY_CAP.toLocaleString("en-US")})`),
    more: z.boolean().describe("Deliveries matching the same filter remain beyond the cap: call again from nextCreatedFrom to take the next ones"),
    nextCreatedFrom: atOrNull(
      "With more: the createdAt of the first delivery not taken; send the same body with createdFrom set to it for the next ones. Null otherwise",
    ),
    status: z.enum(BULK_REDELIVERY_STATUSES).describe("The status selected, as sent"),
    createdFrom: atOrNull("The inclusive lower bound on createdAt applied; null when none"),
    createdTo: atOrNull("The exclusive upper bound on createdAt applied; null when none"),
    correlationId,
  })
  .describe("What a bulk redelivery did, with the filter it applied.");

export const WEBHOOK_DELIVERY_SCHEMA = schemaComponent("WebhookDelivery", WebhookDeliveryResponse.extend({ correlationId }));
export const WEBHOOK_DELIVERY_DETAIL_SCHEMA = schemaComponent("WebhookDeliveryDetail", WebhookDeliveryDetailResponse);
export const WEBHOOK_DELIVERY_PAGE_SCHEMA = schemaComponent("WebhookDeliveryPage", WebhookDeliveryPageResponse);
export const WEBHOOK_BULK_REDELIVERY_SCHEMA = schemaComponent("WebhookBulkRedelivery", WebhookBulkRedeliveryResponse);
export const WEBHOOK_PAYLOAD_SCHEMA = schemaComponent("WebhookPayload", WebhookPayloadBody);
