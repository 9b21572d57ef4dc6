import { Elysia } from "elysia";
import { z } from "zod";
import { getDelivery, listDeliveries } from "@/webhooks/deliveries";
import { DELIVERY_STATUSES } from "@/webhooks/outbox-rows";
import { WEBHOOK_EVENTS } from "@/webhooks/payload";
import { redeliverWebhook } from "@/webhooks/redeliver";
import type { HttpDeps } from "../deps";
import { guard, secured } from "../guard";
import { Paging } from "../paging";
import { requestState } from "../request-state";

const DeliveryQuery = z
  .object({
    status: z.enum(DELIVERY_STATUSES).optional().describe("pending, delivering, delivered or dead"),
    event: z.enum(WEBHOOK_EVENTS).optional().describe("screening.completed or monitoring.alert"),
    ...Paging.shape,
  })
  .strict();

const DeliveryParams = z.object({ id: z.string().min(1).max(100).describe("Delivery id (also sent as X-AML-Delivery)") });

/** The tenant's webhook delivery log and manual redelivery. `wake` nudges the dispatcher after a redelivery. */
export function webhookRoutes(deps: HttpDeps, wake: () => void = () => undefined) {
  return new Elysia()
    .use(guard(deps))
    .get(
      "/v1/webhooks/deliveries",
      ({ caller, query }) => {
        const page = listDeliveries(deps.db, caller.tenantId, { status: query.status, event: query.event }, { skip: query.skip, take: query.take });
        return { items: page.items, total: page.total, skip: query.skip, take: query.take };
      },
      {
        tenant: "Screening.Read",
        query: DeliveryQuery,
        detail: secured("Screening.Read", {
          summary: "List the tenant's webhook deliveries, newest first",
          description:
            "Each delivery with its status (pending, delivering, delivered, dead), attempts in the current series, last HTTP status and error, next attempt time and delivery time. Filters: status, event. Paged with skip (default 0) and take (default 50, at most 500). Never includes the signing secret.",
          tags: ["Webhooks"],
        }),
      },
    )
    .get("/v1/webhooks/deliveries/:id", ({ caller, params }) => getDelivery(deps.db, caller.tenantId, params.id), {
      tenant: "Screening.Read",
      params: DeliveryParams,
      detail: secured("Screening.Read", {
        summary: "Read one webhook delivery with its signed payload and every attempt",
        description: "404 when the delivery does not exist or belongs to another tenant.",
        tags: ["Webhooks"],
      }),
    })
    .post(
      "/v1/webhooks/deliveries/:id/redeliver",
      ({ caller, params, request, set }) => {
        const meta = { actor: caller.actor, correlationId: requestState(request).correlationId };
        const delivery = redeliverWebhook(deps, { tenantId: caller.tenantId, id: params.id }, meta);
        wake();
        set.status = 202;
        return delivery;
      },
      {
        tenant: "Screening.Write",
        params: DeliveryParams,
        detail: secured("Screening.Write", {
          summary: "Send a delivery again now",
          description:
            "A delivered or dead delivery starts a new attempt series for the same event: same X-AML-Delivery id and body, a fresh timestamp and signature, the full retry schedule. A pending delivery (waiting for a retry) becomes due now: its next attempt goes out at once, in the same series, and its attempt count is unchanged. 202 with the delivery in both cases; 409 while an attempt is in flight (status delivering); 404 for another tenant's delivery. Audited as webhook.redeliver.",
          tags: ["Webhooks"],
        }),
      },
    );
}
