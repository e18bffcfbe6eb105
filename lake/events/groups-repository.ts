import type pg from 'pg';
import { mergeGroupFields, toGroupColumns, toVersion } from '../projections/group-fields.js';
import type { JsonValue } from '../../common/json-value.js';

/**
 * Applies last-writer-wins field writes (and optionally a newer snapshot document) to one
 * `whatsapp_groups` row. Caller holds the group's lock (`lockGroups`).
 *
 * @param at - event time (epoch ms), event id and precedence (ADR 0007: a timed write beats every hint).
 * @param snapshot - the full metadata document of a `groups.metadata`/`groups.upsert` event.
 */
export async function applyGroupWrites(
  client: pg.ClientBase,
  groupJid: string,
  writes: Record<string, JsonValue>,
  at: { atMs: number; eventId: string; isTimed: boolean },
  snapshot: JsonValue | null
): Promise<void> {
  await client.query('INSERT INTO whatsapp_groups (jid) VALUES ($1) ON CONFLICT (jid) DO NOTHING', [groupJid]);
  const { rows } = await client.query<{
    fields: Record<string, JsonValue>;
    field_versions: Record<string, string>;
    snapshot_version: string | null;
  }>(
    `SELECT fields, field_versions,
            CASE WHEN snapshot_at IS NULL THEN NULL
                 ELSE '1|' || lpad((extract(epoch FROM snapshot_at) * 1000)::bigint::text, 16, '0') || '|' || snapshot_event_id END AS snapshot_version
       FROM whatsapp_groups WHERE jid = $1`,
    [groupJid]
  );
  const row = rows[0];
  if (!row) return;
  const version = toVersion(at.atMs, at.eventId, at.isTimed);
  const merged = mergeGroupFields({ fields: row.fields, versions: row.field_versions }, writes, version);
  const columns = toGroupColumns(merged.fields);
  const isNewerSnapshot = snapshot !== null && (row.snapshot_version === null || row.snapshot_version < version);
  // The snapshot is copied from the stored raw row when there is one, so its numbers keep every digit
  // (the JS document has doubles); the document itself is the fallback for a projection without a row.
  // Merged fields and settings are doubles: group settings hold booleans and small integers.
  await client.query(
    `UPDATE whatsapp_groups
        SET subject = $2, description = $3, settings = $4, fields = $5, field_versions = $6,
            latest_snapshot = CASE WHEN $7::boolean
              THEN COALESCE((SELECT payload FROM whatsapp_event_logs WHERE event_id = $10::uuid), $8::jsonb)
              ELSE latest_snapshot END,
            snapshot_at = CASE WHEN $7::boolean THEN $9::timestamptz ELSE snapshot_at END,
            snapshot_event_id = CASE WHEN $7::boolean THEN $10::uuid ELSE snapshot_event_id END,
            updated_at = now()
      WHERE jid = $1`,
    [
      groupJid,
      columns.subject,
      columns.description,
      JSON.stringify(columns.settings),
      JSON.stringify(merged.fields),
      JSON.stringify(merged.versions),
      isNewerSnapshot,
      JSON.stringify(snapshot),
      new Date(at.atMs),
      at.eventId,
    ]
  );
}
