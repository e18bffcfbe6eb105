import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, dropDatabase } from '../../../dev-stack/scratch-databases.js';
import { createPool, rebuildProjections, runMigrations } from '../../../lake/index.js';
import { loadEngagementCase } from '../../fixtures/engagement-cases/load-engagement-case.js';
import { silentLogger } from '../../helpers/silent-logger.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../../lake/migrations', import.meta.url));
/** The last migration of the release before ADR 0019. */
const RELEASED = readdirSync(MIGRATIONS_DIR).filter((name) => name.endsWith('.ts') && name < '1765450000000').length;

let url = '';
let pool: pg.Pool;
beforeAll(async () => {
  url = await createDatabase(inject('databaseUrl'), `wa_lake_${randomUUID().replaceAll('-', '').slice(0, 16)}`);
  await runner({
    databaseUrl: url,
    dir: MIGRATIONS_DIR,
    ignorePattern: '(\\..*|.*\\.map|.*\\.d\\.ts)',
    migrationsTable: 'pgmigrations',
    direction: 'up',
    count: RELEASED,
    singleTransaction: true,
    logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  pool = createPool(url, { max: 2, logger: silentLogger() });
});
afterAll(async () => {
  await pool.end();
  await dropDatabase(url);
});

/**
 * What today's release wrote for the smallest inputs of ADR 0019: the raw rows, and the rows its
 * projections made of them (the device-suffixed sender as a participant of its own; the merged revoke under the
 * revoke's id and the revoker).
 */
async function writeAsReleased(client: pg.ClientBase): Promise<void> {
  for (const name of ['01-device-suffix', '03-merged-offline-revoke']) {
    for (const [index, { event_id, body }] of loadEngagementCase(name).events.entries()) {
      const payload = body['payload'] as { messageTimestamp?: number };
      await client.query(
        `INSERT INTO whatsapp_event_logs (id, event_id, type, chat_jid, payload, received_at, occurred_at, upsert_type)
         VALUES ($1, $2, $3, $4, $5, now(), $6, $7)`,
        [
          `01900000-0000-7000-8000-${name.slice(0, 2)}${String(index).padStart(10, '0')}`,
          event_id,
          body['type'],
          body['chat_jid'],
          JSON.stringify(payload),
          payload.messageTimestamp === undefined ? null : new Date(payload.messageTimestamp * 1000),
          body['upsert_type'] ?? null,
        ]
      );
    }
  }
  await client.query(`
    INSERT INTO whatsapp_participants (id, lid, phone_jid) VALUES
      ('20000000000993@lid', '20000000000993@lid', '5500000000993@s.whatsapp.net'),
      ('20000000000993:3@lid', '20000000000993:3@lid', '5500000000993:3@s.whatsapp.net');
    INSERT INTO whatsapp_lid_aliases (lid, phone_jid, first_seen_at, last_seen_at) VALUES
      ('20000000000993@lid', '5500000000993@s.whatsapp.net', to_timestamp(1709564400), to_timestamp(1709564400)),
      ('20000000000993:3@lid', '5500000000993:3@s.whatsapp.net', to_timestamp(1709568000), to_timestamp(1709568000));
    INSERT INTO whatsapp_message_records
      (chat_jid, message_id, kind, is_message, sender_id, sent_at, reply_to_id, mention_count, record_rank, record_event_id)
    VALUES
      ('120363000000002701@g.us', '3EB0C27000000000000001', 'text', true, '20000000000993@lid', to_timestamp(1709564400), NULL, 0, 2, '27000001-0000-4000-8000-000000000001'),
      ('120363000000002701@g.us', '3EB0C27000000000000002', 'text', true, '20000000000993:3@lid', to_timestamp(1709568000), NULL, 0, 2, '27000001-0000-4000-8000-000000000002'),
      ('120363000000002703@g.us', '3EB0C27000000000000399', 'revoked', true, '20000000000301@lid', to_timestamp(1709564400), NULL, 0, 3, '27000003-0000-4000-8000-000000000001');
    INSERT INTO whatsapp_message_revokes (chat_jid, target_id, deleted_at) VALUES
      ('120363000000002703@g.us', '3EB0C27000000000000399', to_timestamp(1709564400)),
      ('120363000000002703@g.us', '3EB0C27000000000000301', to_timestamp(1709571600));
    INSERT INTO whatsapp_message_reactions (chat_jid, target_id, reactor_id, text, reacted_at, event_id) VALUES
      ('120363000000002703@g.us', '3EB0C27000000000000301', '20000000000303@lid', '👍', to_timestamp(1709565000), '27000003-0000-4000-8000-000000000003');
  `);
}

const figures = async (): Promise<unknown> => ({
  people: (
    await pool.query(
      `SELECT group_jid, participant_id, sum(messages)::int AS messages, sum(reactions_received)::int AS received
         FROM engagement_member_daily GROUP BY 1, 2 ORDER BY 1, 2`
    )
  ).rows,
  active: (
    await pool.query(
      `SELECT group_jid, max(active_members) AS active FROM engagement_group_daily GROUP BY 1 ORDER BY 1`
    )
  ).rows,
  suffixed: (await pool.query(`SELECT id FROM whatsapp_participants WHERE id LIKE '%:%'`)).rowCount,
});

describe('a lake written by the release before ADR 0019', () => {
  it('gives the old numbers after migrating and the new ones after wa-lake rebuild', async () => {
    const client = await pool.connect();
    try {
      await writeAsReleased(client);
    } finally {
      client.release();
    }
    await runMigrations({ databaseUrl: url });
    // Migrating alone keeps what was stored: two people for the member on WhatsApp Web, the deletion for the admin.
    expect(await figures()).toEqual({
      people: [
        { group_jid: '120363000000002701@g.us', participant_id: '20000000000993:3@lid', messages: 1, received: 0 },
        { group_jid: '120363000000002701@g.us', participant_id: '20000000000993@lid', messages: 1, received: 0 },
        { group_jid: '120363000000002703@g.us', participant_id: '20000000000301@lid', messages: 1, received: 0 },
        { group_jid: '120363000000002703@g.us', participant_id: '20000000000303@lid', messages: 0, received: 0 },
      ],
      active: [
        { group_jid: '120363000000002701@g.us', active: 2 },
        { group_jid: '120363000000002703@g.us', active: 2 },
      ],
      suffixed: 1,
    });
    await rebuildProjections(pool);
    expect(await figures()).toEqual({
      people: [
        { group_jid: '120363000000002701@g.us', participant_id: '20000000000993@lid', messages: 2, received: 0 },
        { group_jid: '120363000000002703@g.us', participant_id: '20000000000302@lid', messages: 1, received: 1 },
        { group_jid: '120363000000002703@g.us', participant_id: '20000000000303@lid', messages: 0, received: 0 },
      ],
      active: [
        { group_jid: '120363000000002701@g.us', active: 1 },
        { group_jid: '120363000000002703@g.us', active: 2 },
      ],
      suffixed: 0,
    });
  });
});
