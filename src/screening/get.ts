import { notFound } from "@/errors";
import { isUuid, storedId } from "@/lib/ids";
import type { Db } from "@/storage/db";
import { findScreening } from "./store";
import type { ScreeningRecord } from "./types";

/** A tenant's screening; a malformed id, a missing one and another tenant's all read as 404. */
export function getScreening(db: Db, tenantId: string, id: string): ScreeningRecord {
  const record = isUuid(id) ? findScreening(db, tenantId, storedId(id)) : null;
  if (!record) throw notFound(`Screening ${id}`);
  return record;
}
