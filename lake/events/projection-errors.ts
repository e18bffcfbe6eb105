import type pg from 'pg';

/**
 * Records why the projection of one stored event failed (`whatsapp_projection_errors`, architecture.md §8): the
 * raw row still commits, `wa-lake rebuild` retries it. Runs after the failed work was rolled back to
 * its savepoint.
 */
export async function recordProjectionError(
  client: pg.ClientBase,
  event: { eventId: string; type: string },
  error: Error
): Promise<void> {
  const code = (error as { code?: unknown }).code;
  await client.query(
    `INSERT INTO whatsapp_projection_errors (event_id, type, error_name, error_code, message) VALUES ($1, $2, $3, $4, $5)`,
    [
      event.eventId,
      event.type,
      error.name.slice(0, 255),
      typeof code === 'string' ? code.slice(0, 50) : null,
      error.message,
    ]
  );
}
