import { createHash } from 'node:crypto';
import pg from 'pg';

/** What the chaos test compares between the reference run and the chaos run. */
export interface LakeSnapshot {
  /** event_id → digest of the stored row (type, chat, payload, times, sanitized flag). */
  events: Map<string, string>;
  /** Rows in `whatsapp_event_logs` minus distinct event_ids (0 by the UNIQUE constraint, checked anyway). */
  duplicates: number;
  /** Projection table → digest of its rows (ordered, without arrival-time columns). */
  projections: Record<string, { rows: number; digest: string }>;
}

// Projection tables with the columns that are a function of the events (not created_at/updated_at,
// which record when the ingest happened to write, and differ between any two runs).
const PROJECTIONS: Record<string, string> = {
  whatsapp_groups:
    'jid, subject, description, settings, fields, field_versions, latest_snapshot, snapshot_at, snapshot_event_id',
  whatsapp_participants: 'id, lid, phone_jid',
  whatsapp_lid_aliases: 'lid, phone_jid, first_seen_at, last_seen_at',
  whatsapp_group_memberships: 'group_jid, participant_id, role, joined_at, left_at',
  whatsapp_membership_facts: 'group_jid, participant_id, event_id, at, is_present, role',
  whatsapp_group_snapshots: 'group_jid, event_id, at, members',
  whatsapp_projection_errors: 'event_id, type, error_name, error_code, message',
};

const digest = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Reads the lake of `databaseUrl` into a {@link LakeSnapshot}. */
export async function snapshotLake(databaseUrl: string): Promise<LakeSnapshot> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const rows = await client.query<{ event_id: string; row: string }>(
      `SELECT event_id::text, concat_ws('|', type, chat_jid, payload::text, captured_at, occurred_at, upsert_type,
         sanitized) AS row FROM whatsapp_event_logs`
    );
    const events = new Map(rows.rows.map((row) => [row.event_id, digest(row.row)]));
    const projections: LakeSnapshot['projections'] = {};
    for (const [table, columns] of Object.entries(PROJECTIONS)) {
      const result = await client.query<{ row: string }>(
        `SELECT row_to_json(t)::text AS row FROM (SELECT ${columns} FROM ${table}) t ORDER BY 1`
      );
      projections[table] = { rows: result.rows.length, digest: digest(result.rows.map((row) => row.row).join('\n')) };
    }
    return { events, duplicates: rows.rows.length - events.size, projections };
  } finally {
    await client.end();
  }
}

/** Differences between two snapshots: counts that must all be zero, and the projections that differ. */
export interface LakeDifference {
  missing: number;
  extra: number;
  changed: number;
  duplicates: number;
  projectionsDiffering: string[];
}

/** Compares the chaos run's lake with the reference run's. */
export function compareLakes(reference: LakeSnapshot, chaos: LakeSnapshot): LakeDifference {
  let missing = 0;
  let changed = 0;
  for (const [eventId, rowDigest] of reference.events) {
    const other = chaos.events.get(eventId);
    if (other === undefined) missing++;
    else if (other !== rowDigest) changed++;
  }
  const extra = [...chaos.events.keys()].filter((eventId) => !reference.events.has(eventId)).length;
  const projectionsDiffering = Object.keys(PROJECTIONS).filter(
    (table) => reference.projections[table]?.digest !== chaos.projections[table]?.digest
  );
  return { missing, extra, changed, duplicates: chaos.duplicates + reference.duplicates, projectionsDiffering };
}
