-- Two ways past the guards of 0009 and 0010 that a probe found with a sqlite3 shell:
-- REPLACE INTO usage_counters with used 0 set a month's counter back, handing the tenant its quota
-- again: REPLACE removes the row it meets without firing DELETE triggers (unless recursive_triggers
-- is on, which the shell, not the appliance, decides). And a live Idempotency-Key's row could be
-- deleted and inserted again naming another screening, so a replay returned a screening the client
-- never asked for (bulk keys likewise, so a retried bulk screened and charged again).
-- chargeScreens now adds to the month's row and inserts it only when there is none, so an insert of
-- a month already counted is refused however it is written; and a key's row may be deleted only once
-- it has expired by the database's own clock (rememberKey's sweep deletes nothing younger).
-- Never edit a released migration: add a new file instead.

CREATE TRIGGER usage_counters_no_replace BEFORE INSERT ON usage_counters
WHEN EXISTS (SELECT 1 FROM usage_counters WHERE tenant_id = NEW.tenant_id AND period = NEW.period)
BEGIN SELECT RAISE(ABORT, 'usage counters only grow'); END;

CREATE TRIGGER idempotency_keys_kept_until_expiry BEFORE DELETE ON idempotency_keys
WHEN OLD.expires_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
BEGIN SELECT RAISE(ABORT, 'an idempotency key is kept until it expires'); END;
CREATE TRIGGER bulk_idempotency_keys_kept_until_expiry BEFORE DELETE ON bulk_idempotency_keys
WHEN OLD.expires_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
BEGIN SELECT RAISE(ABORT, 'an idempotency key is kept until it expires'); END;

-- A counter holds a whole number: UPDATE OR REPLACE … SET used = NULL passed 0009's comparison (NULL
-- compares as unknown) and then took the column's default, 0; a text value sorts above any number
-- and made every later charge fail.
CREATE TRIGGER usage_counters_whole_numbers BEFORE UPDATE ON usage_counters
WHEN NEW.used IS NULL OR typeof(NEW.used) <> 'integer'
BEGIN SELECT RAISE(ABORT, 'usage counters only grow'); END;
CREATE TRIGGER usage_counters_whole_numbers_inserted BEFORE INSERT ON usage_counters
WHEN NEW.used IS NULL OR typeof(NEW.used) <> 'integer'
BEGIN SELECT RAISE(ABORT, 'usage counters only grow'); END;
