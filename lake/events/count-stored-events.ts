import pg from 'pg';

/**
 * Counts rows of `whatsapp_event_logs` whose `event_id` is in `eventIds` (architecture.md §9), over a short-lived
 * connection. Used by `wa-lake demo` to compare the lake with what the collector kept.
 */
export async function countStoredEvents(databaseUrl: string, eventIds: readonly string[]): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ count: string }>(
      'SELECT count(*)::text AS count FROM whatsapp_event_logs WHERE event_id = ANY($1::uuid[])',
      [eventIds]
    );
    return Number(result.rows[0]?.count ?? 0);
  } finally {
    await client.end();
  }
}
