import { expect, test } from "bun:test";
import { diskCheck, MIN_FREE_BYTES } from "@/storage/disk-space";

const MiB = 1024 * 1024;

test("ready with the free space named; not ready below the floor, saying what follows and what to do", () => {
  expect(diskCheck(5_000 * MiB)).toEqual({ name: "disk", ready: true, detail: "5,000 MiB free on the data folder's file system" });
  expect(diskCheck(MIN_FREE_BYTES).ready).toBe(true);
  expect(diskCheck(MIN_FREE_BYTES - 1)).toEqual({
    name: "disk",
    ready: false,
    detail: 'only 63 MiB free on the data folder\'s file system (at least 64 MiB needed): screens will soon be refused with 503 "disk is full"; free space',
  });
  expect(diskCheck(0).ready).toBe(false);
});

test("free space that cannot be read does not stop the appliance: it says so and stays ready", () => {
  expect(diskCheck(null)).toEqual({ name: "disk", ready: true, detail: "free space on the data folder's file system could not be read" });
});
