/**
 * `wa-lake export --participant` for a member with 10,000 messages in a lake of 200,000 (ADR 0014 decision 7:
 * under a minute). Embedded PostgreSQL; the community comes from the engagement bench's bulk load, the member's
 * own messages are raw rows with their read-model records, as the ingest API writes them.
 * Run: `npx tsx bench/participant-export.ts`.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runParticipantExport } from '../cli/privacy/run-participant-export.js';
import { startEmbeddedPostgres } from '../dev-stack/embedded-postgres.js';
import { runMigrations } from '../lake/migrate.js';
import { createPool } from '../lake/pool.js';
import { bulkLoadCommunity } from './engagement-bulk-load.js';

const MEMBER_MESSAGES = 10_000;
const MEMBER_LID = '199999999999999@lid';

const dataDir = mkdtempSync(join(tmpdir(), 'wa-lake-bench-export-pg-'));
chmodSync(dataDir, 0o711); // embedded PostgreSQL may run as another user when the bench runs as root
const postgres = await startEmbeddedPostgres({ dataDir: join(dataDir, 'pg'), database: 'wa_lake_export_bench' });
const pool = createPool(postgres.databaseUrl, { max: 2 });
try {
  await runMigrations({ databaseUrl: postgres.databaseUrl });
  await bulkLoadCommunity(pool, { messages: 200_000, members: 2_000, groups: 20, days: 90 });
  await pool.query(
    `WITH rows AS (
       SELECT i, gen_random_uuid() AS event_id, '120363000000000001@g.us' AS chat,
              now() - (i || ' minutes')::interval AS at FROM generate_series(1, $1::int) AS i),
     raw AS (
       INSERT INTO whatsapp_event_logs (id, event_id, type, chat_jid, payload, received_at, occurred_at)
       SELECT gen_random_uuid(), event_id, 'messages.upsert', chat,
              jsonb_build_object('key', jsonb_build_object('remoteJid', chat, 'id', 'X' || i, 'participant', $2::text),
                                 'pushName', 'Bench Member', 'message', jsonb_build_object('conversation', 'words ' || i)),
              at, at FROM rows)
     INSERT INTO whatsapp_message_records (chat_jid, message_id, kind, is_message, sender_id, sent_at, record_rank,
                                          record_event_id)
     SELECT chat, 'X' || i, 'text', true, $2::text, at, 2, event_id FROM rows`,
    [MEMBER_MESSAGES, MEMBER_LID]
  );
  await pool.query('ANALYZE');
  const started = performance.now();
  const written = await runParticipantExport({
    pool,
    identifier: MEMBER_LID,
    outDir: join(dataDir, 'out'),
    requestedBy: 'bench',
    temporalNamespace: 'default',
  });
  const ms = Math.round(performance.now() - started);
  process.stdout.write(
    `${JSON.stringify({ export_ms: ms, messages: written.counts['messages'], target_ms: 60_000, load_average_1m: loadavg()[0] })}\n`
  );
} finally {
  await pool.end();
  await postgres.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
