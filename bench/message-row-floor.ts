/**
 * The floor of any message read model on this host (ADR 0013): a lake database whose raw-row INSERT
 * statements also write one row of `whatsapp_message_records` per message — its primary key and the fields
 * item 1 needs, nothing merged, no rollup — in the same statement's transaction, through an AFTER INSERT
 * statement trigger. The ingest API without its read model on this database prices "one more indexed row
 * per message", which item 1 (one row per message, same transaction) cannot go below.
 */
import pg from 'pg';
import { createDatabase } from '../dev-stack/scratch-databases.js';
import { runMigrations } from '../lake/migrate.js';

const FLOOR_TRIGGER_SQL = `
  CREATE FUNCTION bench_write_message_rows() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO whatsapp_message_records
      (chat_jid, message_id, kind, is_message, sender_id, sent_at, mention_count, record_rank, record_event_id)
    SELECT chat_jid, payload #>> '{key,id}', 'text', true, payload #>> '{key,participant}', occurred_at, 0, 2, event_id
      FROM inserted_rows WHERE type = 'messages.upsert'
    ON CONFLICT DO NOTHING;
    RETURN NULL;
  END $$;
  CREATE TRIGGER bench_write_message_rows AFTER INSERT ON whatsapp_event_logs
    REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION bench_write_message_rows();`;

/**
 * Creates database `name` on the server of `databaseUrl`, migrates it, and adds the floor trigger.
 *
 * @returns the new database's URL.
 * @throws pg.DatabaseError when a statement fails (e.g. the database exists); MigrationFailedError from
 *   `runMigrations`.
 */
export async function createMessageRowFloorDatabase(databaseUrl: string, name: string): Promise<string> {
  const url = await createDatabase(databaseUrl, name);
  await runMigrations({ databaseUrl: url });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(FLOOR_TRIGGER_SQL);
  } finally {
    await client.end();
  }
  return url;
}
