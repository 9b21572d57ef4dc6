import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "zod";
import { call, json } from "../helpers/api";
import { deliveriesSettled, type ScreeningWorld, startScreeningWorld } from "../screening/world";
import { SPEC_BODY_FIELDS } from "./fixtures";

/**
 * The OpenAPI document describes the receiver's side (the `webhooks` entry of OpenAPI 3.1), and what
 * a real receiver gets conforms to it: a schema that drifted from the sender would mislead every
 * client generated from /openapi.json.
 */
type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; required?: string[]; enum?: unknown[]; pattern?: string; $ref?: string };
type Parameter = { name: string; in: string; required: boolean; schema: JsonSchema };
type Document = {
  webhooks: Record<string, { post: { parameters: Parameter[]; requestBody: { content: Record<string, { schema: JsonSchema }> }; security: unknown[] } }>;
  components: { schemas: Record<string, JsonSchema> };
};


let world: ScreeningWorld;
let doc: Document;
beforeAll(async () => {
  world = await startScreeningWorld();
  doc = json<Document>(await call(world.url, "/openapi.json"));
});
afterAll(() => world.close());

describe("the webhooks entry of the OpenAPI document", () => {
  test("describes screening.completed: its headers, its body as a published schema, no appliance credential", () => {
    const operation = doc.webhooks["screening.completed"]?.post;
    expect(operation).toBeDefined();
    expect(operation?.security).toEqual([]);
    expect(operation?.parameters.map((p) => `${p.in}:${p.name}:${p.required}`)).toEqual([
      "header:X-AML-Event:true",
      "header:X-AML-Delivery:true",
      "header:X-AML-Attempt:true",
      "header:X-AML-Timestamp:true",
      "header:X-AML-Signature:true",
      "header:User-Agent:true",
    ]);
    expect(operation?.requestBody.content["application/json"]?.schema.$ref).toBe("#/components/schemas/WebhookPayload");
    const payload = doc.components.schemas["WebhookPayload"];
    expect(Object.keys(payload?.properties ?? {}).sort()).toEqual(SPEC_BODY_FIELDS);
    expect([...(payload?.required ?? [])].sort()).toEqual(SPEC_BODY_FIELDS);
  });

  test("a real delivery's headers and body conform to it", async () => {
    const checked = await world.post("/v1/screenings/check", { fullName: "Dmitri Korvalev", userReference: "openapi-webhooks" });
    expect(checked.status).toBe(200);
    await deliveriesSettled(world, 1);
    const delivery = world.receiver.delivered.find((d) => d.body["userReference"] === "openapi-webhooks");
    expect(delivery).toBeDefined();
    if (!delivery) return;

    const parameters = doc.webhooks["screening.completed"]?.post.parameters ?? [];
    const sent: Record<string, string> = {
      "X-AML-Event": delivery.event,
      "X-AML-Delivery": delivery.deliveryId,
      "X-AML-Attempt": delivery.attempt,
      "X-AML-Timestamp": delivery.timestamp,
      "X-AML-Signature": delivery.signature,
      "User-Agent": delivery.userAgent,
    };
    for (const parameter of parameters) {
      const value = sent[parameter.name] ?? "";
      if (parameter.schema.pattern) expect(value).toMatch(new RegExp(parameter.schema.pattern));
      if (parameter.schema.enum) expect(parameter.schema.enum).toContain(value);
    }

    // The published schema, read back by zod's own JSON Schema reader, accepts the body as sent and
    // names every member it has: nothing undocumented rides along.
    const published = z.fromJSONSchema(doc.components.schemas["WebhookPayload"] as Parameters<typeof z.fromJSONSchema>[0]);
    expect(published.safeParse(JSON.parse(delivery.rawBody)).success).toBe(true);
    expect(Object.keys(JSON.parse(delivery.rawBody)).sort()).toEqual(SPEC_BODY_FIELDS);
  });
});
