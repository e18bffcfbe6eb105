import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * `display_name` in every engagement view with a participant (issue #28 item 1, ADR 0025, docs/engagement.md
 * "Names"): a BI tool shows a name without joining. Each view listed keeps its definition, whatever the migrations
 * before this one made it, wrapped as a subquery and left-joined to the display names:
 * `SELECT v.*, n.display_name FROM (<definition>) v LEFT JOIN (names, one row per participant) n …`. The names
 * side is DISTINCT ON its key, so PostgreSQL drops the join from any query that does not read the name (the names
 * view scans raw rows; a count of messages must not pay for it).
 *
 * - A participant column gets `display_name` (the second one of a view: `target_display_name`,
 *   `to_display_name`); `engagement_reply_graph`'s sender side is `from_display_name`.
 * - A person (`person_key`: a member id or the LID of a succession) is named by `whatsapp_person_display_names`:
 *   a name of any of its participants (member, push or business name first, the successor's first), else the
 *   first participant's phone or id.
 */
const PARTICIPANT_NAMES = `(SELECT DISTINCT ON (participant_id) participant_id, display_name
                              FROM whatsapp_participant_display_names ORDER BY participant_id)`;
const PERSON_NAMES = `(SELECT DISTINCT ON (person_key) person_key, display_name
                         FROM whatsapp_person_display_names ORDER BY person_key)`;

/** Views, the column naming its participant or person, the name column added, and which names. */
const WRAPS: readonly [view: string, key: string, column: string, names: 'participant' | 'person'][] = [
  ['whatsapp_messages', 'sender_id', 'display_name', 'participant'],
  ['whatsapp_reactions', 'reactor_id', 'display_name', 'participant'],
  ['engagement_member_activity_days', 'participant_id', 'display_name', 'participant'],
  ['engagement_member_received_days', 'participant_id', 'display_name', 'participant'],
  ['engagement_member_daily', 'participant_id', 'display_name', 'participant'],
  ['engagement_membership_changes', 'participant_id', 'display_name', 'participant'],
  ['engagement_lurkers', 'participant_id', 'display_name', 'participant'],
  ['engagement_first_responses', 'sender_id', 'display_name', 'participant'],
  ['engagement_reply_edges', 'sender_id', 'display_name', 'participant'],
  ['engagement_reply_edges', 'target_participant_id', 'target_display_name', 'participant'],
  ['engagement_reply_graph', 'from_participant_id', 'from_display_name', 'participant'],
  ['engagement_reply_graph', 'to_participant_id', 'to_display_name', 'participant'],
  ['engagement_unanswered_candidates', 'sender_id', 'display_name', 'participant'],
  ['engagement_unanswered', 'sender_id', 'display_name', 'participant'],
  ['engagement_member_levels', 'person_key', 'display_name', 'person'],
  ['engagement_level_transitions', 'person_key', 'display_name', 'person'],
];

export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE VIEW whatsapp_person_display_names AS
      SELECT DISTINCT ON (person_key) person_key, display_name, display_name_source
        FROM (SELECT COALESCE(i.person_key, n.participant_id) AS person_key, n.participant_id, i.person_lid,
                     n.display_name, n.display_name_source
                FROM whatsapp_participant_display_names n
                LEFT JOIN whatsapp_person_identities i ON i.participant_id = n.participant_id) people
       ORDER BY person_key, display_name_source IN ('member', 'push', 'business') DESC,
                participant_id = person_lid DESC, participant_id COLLATE "C";
  `);
  for (const [view, key, column, names] of WRAPS) {
    pgm.sql(`
      DO $$
      DECLARE definition text := rtrim(pg_get_viewdef('${view}'::regclass), E'; \\n');
      BEGIN
        EXECUTE format('CREATE OR REPLACE VIEW ${view} AS SELECT v.*, n.display_name AS ${column} FROM (%s) v '
                       'LEFT JOIN ${names === 'participant' ? PARTICIPANT_NAMES : PERSON_NAMES} n '
                       'ON n.${names === 'participant' ? 'participant_id' : 'person_key'} = v.${key}', definition);
      END $$;
    `);
  }
}

/** A view column cannot be dropped in place, and the views before this one cannot be named here: irreversible. */
export const down = false;
