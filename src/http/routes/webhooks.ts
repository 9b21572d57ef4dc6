import { Elysia } from "elysia";
import { EMPTY_REQUEST_BODY, NoQuery, refuseBodyFields } from "@/http/empty-input";
import { z } from "zod";
import { pathId } from "@/lib/validate";
import { groupCommit } from "@/storage/group-commit";
import { getDelivery, listDeliveries } from "@/webhooks/deliveries";
import { DELIVERY_STATUSES } from "@/webhooks/outbox-rows";
import { WEBHOOK_EVENTS } from "@/webhooks/payload";
import { BULK_REDELIVERY_CAP, BulkRedeliverInput, prepareRedeliverWebhook, prepareRedeliverWebhooks } from "@/webhooks/redeliver";
import {
  WEBHOOK_BULK_REDELIVERY_SCHEMA,
  WEBHOOK_DELIVERY_DETAIL_SCHEMA,
  WEBHOOK_DELIVERY_PAGE_SCHEMA,
  WEBHOOK_DELIVERY_SCHEMA,
} from "@/webhooks/response-schemas";
import type { HttpDeps } from "../deps";
import { guard, secured } from "../guard";
import { media } from "../media";
import { JSON_ONLY } from "../negotiate";
import { jsonRequestBody, jsonResponse, NO_QUERY, NO_QUERY_PROBLEM, problemResponses } from "../openapi";
import { Paging } from "../paging";
import { callMeta } from "../request-state";

/** The list's filters and paging; any other query parameter is 400, not ignored. */
const DeliveryQuery = z
  .object({
    status: z.enum(DELIVERY_STATUSES).optional().describe("pending, delivering, delivered or dead"),
    event: z.enum(WEBHOOK_EVENTS).optional().describe("screening.completed or monitoring.alert"),
    screeningId: z.string().min(1).optional().describe("Only the deliveries of this screening's events; an id that is not the tenant's gives an empty page"),
    ...Paging.shape,
  })
  .strict();

const DeliveryParams = z.object({ id: pathId("Delivery id (also sent as X-AML-Delivery)") }).strict();

export interface WebhookRouteOptions {
  /** Deliveries one bulk redelivery takes at most; default BULK_REDELIVERY_CAP (a test sets a small one). */
  bulkRedeliveryCap?: number;
}

/** The tenant's webhook delivery log and manual redelivery. `wake` nudges the dispatcher after a redelivery. */
export function webhookRoutes(deps: HttpDeps, wake: () => void = () => undefined, options: WebhookRouteOptions = {}) {
  const cap = options.bulkRedeliveryCap ?? BULK_REDELIVERY_CAP;
  return new Elysia()
    .use(guard(deps))
    .use(media())
    .get(
      "/v1/webhooks/deliveries",
      ({ caller, query }) => {
        const page = listDeliveries(deps.db, caller.tenantId, { status: query.status, event: query.event, screeningId: query.screeningId }, { skip: query.skip, take: query.take });
        return { items: page.items, total: page.total, skip: query.skip, take: query.take };
      },
      {
        tenant: "Screening.Read",
        produces: JSON_ONLY,
        query: DeliveryQuery,
        detail: {
          ...secured("Screening.Read", {
            summary: "List the tenant's webhook deliveries, newest first",
            description:
              "Each delivery with its status (pending, delivering, delivered, dead), attempts in the current series, last HTTP status and error, next attempt time and delivery time. Filters: status, event, screeningId (the deliveries of one screening's events; another tenant's screening id, like an unknown one, gives an empty page, not 404). Paged with skip (default 0) and take (default 50, at most 500); any other query parameter is 400. Never includes the signing secret. An Accept that allows no JSON type is 406 before anything is read.",
            tags: ["Webhooks"],
          }),
          responses: {
            200: jsonResponse("One page of deliveries", WEBHOOK_DELIVERY_PAGE_SCHEMA),
            ...problemResponses([400, 401, 403, 406], {
              400: "An unknown status or event, an empty screeningId, skip or take out of range (each named in errors[]), or an unknown query parameter.",
            }),
          },
        },
      },
    )
    // A static path: Elysia's router prefers it to /v1/webhooks/deliveries/:id whatever the order.
    // GET /v1/webhooks/deliveries/redeliver reaches the read of a delivery id "redeliver"; its 404
    // becomes this route's 405 (Allow: POST; app.ts, route-table.ts).
    .post(
      "/v1/webhooks/deliveries/redeliver",
      async ({ caller, body, request, set }) => {
        // Validated by the verb, once (BulkRedeliverInput), before the write waits for its turn.
        const result = await groupCommit(deps.db).run(prepareRedeliverWebhooks(deps, { tenantId: caller.tenantId, input: body, cap }, callMeta(caller, request)));
        // Nothing changed, nothing to hurry: a wake would only start a claim round of its own.
        if (result.redelivered > 0) wake();
        set.status = 202;
        return result;
      },
      {
        tenant: "Screening.Write",
        produces: JSON_ONLY,
        jsonBody: "required",
        query: NoQuery,
        detail: {
          ...secured("Screening.Write", {
            summary: "Send many deliveries again now: every dead one, or every one waiting for a retry",
            description: `For recovery after a receiver outage. Body: \`status\` (required: \`dead\` or \`pending\`) and optionally \`createdFrom\` (inclusive) and \`createdTo\` (exclusive), ISO 8601 date-times with an offset bounding the deliveries' createdAt (null is the same as absent). In ONE transaction, the tenant's deliveries in that status and range, oldest first (createdAt, then id), at most ${cap.toLocaleString("en-US")} per call, never splitting one createdAt between calls (a bulk's deliveries share one): a call stops before the first createdAt it cannot take whole, and takes one whole past the cap only when more than the cap share the oldest, get exactly what POST /v1/webhooks/deliveries/{id}/redeliver does: a dead delivery starts a new attempt series (same X-AML-Delivery id and body, a fresh timestamp and signature, the full retry schedule); a pending delivery waiting for a retry becomes due now, in the same series, with its attempt count unchanged (pending deliveries already due are left as they are and not counted). Deliveries being attempted (delivering) or delivered are never touched, nor another tenant's. 202 with \`redelivered\` (how many), \`more\` (true when deliveries matching the same filter remain beyond the cap), \`nextCreatedFrom\` (with more, the createdAt of the first delivery not taken: send the same body with createdFrom set to it to take the next ones; null otherwise) and the filter applied (instants in UTC); a filter that matches nothing is 202 with redelivered 0. Audited as ONE webhook.redeliver_bulk entry on the tenant (status, createdFrom, createdTo, count, firstId, lastId, more, nextCreatedFrom), also when nothing matched. A missing or unknown status, a malformed date-time, createdFrom not before createdTo, an unknown field or an empty body is 400 (each field named in errors[]); a 400, a 406 (Accept allows no JSON type) or a 415 (a Content-Type other than application/json, text/json or application/*+json) is answered before anything changes: no delivery is touched and nothing is audited. ${NO_QUERY}`,
            tags: ["Webhooks"],
          }),
          requestBody: jsonRequestBody(BulkRedeliverInput),
          responses: {
            202: jsonResponse("How many deliveries were redelivered, whether more match, and the filter applied", WEBHOOK_BULK_REDELIVERY_SCHEMA),
            ...problemResponses([400, 401, 403, 406, 413, 415], {
              400: "A missing or unknown status, a malformed date-time, createdFrom not before createdTo, an unknown field (each named in errors[]), an empty body, malformed JSON or an unknown query parameter. Nothing changes and nothing is audited.",
            }),
          },
        },
      },
    )
    .get("/v1/webhooks/deliveries/:id", ({ caller, params }) => getDelivery(deps.db, caller.tenantId, params.id), {
      tenant: "Screening.Read",
      produces: JSON_ONLY,
      params: DeliveryParams,
      query: NoQuery,
      detail: {
        ...secured("Screening.Read", {
          summary: "Read one webhook delivery with its signed payload and every attempt",
          description: `404 when the delivery does not exist or belongs to another tenant. ${NO_QUERY}`,
          tags: ["Webhooks"],
        }),
        responses: {
          200: jsonResponse("The delivery with its payload and attempts", WEBHOOK_DELIVERY_DETAIL_SCHEMA),
          ...problemResponses([400, 401, 403, 404, 406], {
            400: NO_QUERY_PROBLEM,
            404: "No such delivery, or another tenant's.",
          }),
        },
      },
    })
    .post(
      "/v1/webhooks/deliveries/:id/redeliver",
      async ({ caller, params, body, request, set }) => {
        refuseBodyFields(body, "Redeliver request");
        const delivery = await groupCommit(deps.db).run(prepareRedeliverWebhook(deps, { tenantId: caller.tenantId, id: params.id }, callMeta(caller, request)));
        wake();
        set.status = 202;
        return delivery;
      },
      {
        tenant: "Screening.Write",
        produces: JSON_ONLY,
        jsonBody: "optional",
        params: DeliveryParams,
        query: NoQuery,
        detail: {
          ...secured("Screening.Write", {
            summary: "Send a delivery again now",
            description: `A delivered or dead delivery starts a new attempt series for the same event: same X-AML-Delivery id and body, a fresh timestamp and signature, the full retry schedule. A pending delivery (waiting for a retry) becomes due now: its next attempt goes out at once, in the same series, and its attempt count is unchanged by the call; that attempt counts like any other, so if it fails the delivery moves on to the next, longer retry step (redeliver a pending delivery once its receiver is fixed). 202 with the delivery in both cases; 409 while an attempt is in flight (status delivering); 404 for another tenant's delivery. Audited as webhook.redeliver. Takes no input: send no body (or \`{}\`, or \`null\`); anything else is 400. A 406 (Accept allows no JSON type) or 415 (a Content-Type other than application/json, text/json or application/*+json with a body) is answered before anything changes: the delivery stays as it was and nothing is audited. ${NO_QUERY}`,
            tags: ["Webhooks"],
          }),
          requestBody: EMPTY_REQUEST_BODY,
          responses: {
            202: jsonResponse("The delivery, pending: a new series, or the same one due now", WEBHOOK_DELIVERY_SCHEMA),
            ...problemResponses([400, 401, 403, 404, 406, 409, 413, 415], {
              400: "A body other than {} or null (each field named in errors[]), malformed JSON or an unknown query parameter.",
              404: "No such delivery, or another tenant's.",
              409: "An attempt is in flight (status delivering); its outcome decides what happens next. The detail gives its lease's expiry: a delivery left delivering by an appliance that stopped mid-attempt returns to the queue at the dispatcher's first claim after then (a lease is 2 × timeout + 30 s).",
            }),
          },
        },
      },
    );
}
