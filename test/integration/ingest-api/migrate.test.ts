import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { runMigrations } from '../../../lake/migrate.js';

describe('runMigrations', () => {
  it('is idempotent: a second and a concurrent run apply nothing and keep the schema', async () => {
    const databaseUrl = inject('databaseUrl');
    const [first, second] = await Promise.all([runMigrations({ databaseUrl }), runMigrations({ databaseUrl })]);
    expect([...first, ...second]).toEqual([]);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ column_name: string }>(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'whatsapp_event_logs' ORDER BY column_name"
      );
      // account_jid (ADR 0007), source (ADR 0016) and account_lid (ADR 0019) are new: the first lake's
      // columns keep their names.
      expect(rows.map((row) => row.column_name)).toEqual([
        'account_jid',
        'account_lid',
        'body_redacted_at',
        'captured_at',
        'chat_jid',
        'created_at',
        'event_id',
        'id',
        'occurred_at',
        'payload',
        'received_at',
        'sanitized',
        'source',
        'type',
        'updated_at',
        'upsert_type',
      ]);
    } finally {
      await client.end();
    }
  });
});
