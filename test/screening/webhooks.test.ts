import { afterAll, beforeAll, expect, test } from "bun:test";
import { duplicateIds } from "../helpers/webhook-receiver";
import { json } from "../helpers/api";
import { deliveriesSettled, startScreeningWorld, type ScreeningWorld } from "./world";

/** Every string of the subjects and of the matched entities: none may appear in any webhook body. */
const PERSONAL = ["Dmitri", "Korvalev", "KORVALEV", "Dima", "Anatolyevich", "Ottoline", "Vanderloop", "VANDERLOOP", "Quentrell", "QUENTRELL", "Aldous", "Zembra", "ZEMBRA", "Penelope", "1961"];

let world: ScreeningWorld;
beforeAll(async () => {
  world = await startScreeningWorld();
});
afterAll(() => world.close());

test("check, read, rescreen and bulk raise exactly one signed screening.completed per successful screen, without personal data", async () => {
  const check = json<{ id: string }>(
    await world.post(
      "/v1/screenings/check",
      { fullName: "Dmitri Korvalev", aliases: ["Dima Korvalev"], dateOfBirth: "1961-03-12", userReference: "cust-77" },
      { headers: { "x-correlation-id": "corr-hook-1" } },
    ),
  );
  await deliveriesSettled(world, 1);
  expect(world.receiver.delivered).toHaveLength(1);

  // Reads raise nothing.
  expect((await world.get(`/v1/screenings/${check.id}`)).status).toBe(200);

  const rescreen = json<{ id: string }>(await world.post(`/v1/screenings/${check.id}/rescreen`, null));
  await deliveriesSettled(world, 2);
  expect(world.receiver.delivered).toHaveLength(2);

  const bulk = json<{ rows: Array<{ screeningId: string | null }>; summary: { screened: number; failed: number } }>(
    await world.post("/v1/screenings/bulk", [
      { fullName: "Ottoline Vanderloop", userReference: "b-1" },
      { fullName: "" },
      { fullName: "Aldous Quentrell" },
      { fullName: "Penelope Whitcombe", unknown: true },
      { fullName: "Zembra Trading" },
    ]),
  );
  expect(bulk.summary).toMatchObject({ screened: 3, failed: 2 });
  await deliveriesSettled(world, 5);

  const delivered = world.receiver.delivered;
  expect(delivered).toHaveLength(5);
  expect(world.receiver.rejected).toEqual([]);
  expect(duplicateIds(delivered)).toEqual([]);
  const ids = delivered.map((d) => d.body.screeningId).sort();
  const expected = [check.id, rescreen.id, ...bulk.rows.flatMap((r) => (r.screeningId ? [r.screeningId] : []))].sort();
  expect(ids).toEqual(expected);
  for (const d of delivered) {
    expect(d.event).toBe("screening.completed");
    expect(d.body.event).toBe("screening.completed");
    for (const text of PERSONAL) expect(d.rawBody).not.toContain(text);
  }
  const first = delivered.find((d) => d.body.screeningId === check.id);
  expect(first?.body).toMatchObject({ userReference: "cust-77", correlationId: "corr-hook-1", sourceLists: ["OFAC"], adverseMediaStatus: "Skipped" });
  expect(["Match", "Review"]).toContain(String(first?.body.decision));
});
