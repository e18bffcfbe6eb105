import type pg from 'pg';
import type { MembershipFact } from '../projections/extract-projection-facts.js';
import type { StoredMembershipFact, StoredSnapshot } from '../projections/fold-group-memberships.js';
import type { MembershipRole } from '../projections/participant-ref.js';

// What memberships are folded from (architecture.md §9): membership facts and snapshots, append-only and
// idempotent per event. memberships-repository.ts folds them into `whatsapp_group_memberships`.

/**
 * Records a snapshot's member list (participant id → role). Idempotent per (group, event).
 *
 * @param isComplete - false when the list is shorter than the snapshot's `size` (it removes no one).
 */
export async function insertSnapshot(
  client: pg.ClientBase,
  groupJid: string,
  eventId: string,
  at: Date,
  members: Record<string, MembershipRole>,
  isComplete = true
): Promise<void> {
  await client.query(
    `INSERT INTO whatsapp_group_snapshots (group_jid, event_id, at, members, is_complete) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (group_jid, event_id) DO NOTHING`,
    [groupJid, eventId, at, JSON.stringify(members), isComplete]
  );
}

/**
 * Records membership facts of one event. Idempotent per (group, participant, event).
 *
 * @param isTimed - the event's precedence (ADR 0007): false for a hint timed only by its capture.
 */
export async function insertMembershipFacts(
  client: pg.ClientBase,
  groupJid: string,
  eventId: string,
  at: Date,
  facts: readonly MembershipFact[],
  isTimed = true
): Promise<void> {
  for (const fact of facts) {
    await client.query(
      `INSERT INTO whatsapp_membership_facts (group_jid, participant_id, event_id, at, is_present, role, is_timed, is_account)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (group_jid, participant_id, event_id) DO NOTHING`,
      [
        groupJid,
        fact.participant.participantId,
        eventId,
        at,
        fact.isPresent,
        fact.role,
        isTimed,
        fact.isAccount === true,
      ]
    );
  }
}

/**
 * Finds the groups whose stored facts or snapshots use one of `keys` as a participant key: the groups
 * to recompute when the owner of a phone JID changes (ADR 0004). Caller holds the phone locks of
 * `keys`, so no other transaction can add such a group before it commits.
 *
 * @returns group JIDs, sorted.
 */
export async function findGroupsNaming(client: pg.ClientBase, keys: readonly string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const { rows } = await client.query<{ group_jid: string }>(
    `SELECT group_jid FROM whatsapp_membership_facts WHERE participant_id = ANY($1::text[])
     UNION
     SELECT group_jid FROM whatsapp_group_snapshots WHERE members ?| $1::text[]
     ORDER BY group_jid`,
    [keys]
  );
  return rows.map((row) => row.group_jid);
}

/**
 * Reads the snapshots of a group; with `keys`, only the members under those keys (enough to tell
 * presence from absence for them, and far less to parse than a large group's full lists).
 */
export async function readSnapshots(
  client: pg.ClientBase,
  groupJid: string,
  keys: readonly string[] | null
): Promise<StoredSnapshot[]> {
  const { rows } = await client.query<{
    event_id: string;
    at_ms: string;
    members: Record<string, MembershipRole>;
    is_complete: boolean;
  }>(
    `SELECT event_id, (extract(epoch FROM at) * 1000)::bigint AS at_ms, is_complete,
            CASE WHEN $2::text[] IS NULL THEN members
                 ELSE (SELECT COALESCE(jsonb_object_agg(key, members -> key), '{}'::jsonb)
                         FROM unnest($2::text[]) AS key WHERE members ? key)
            END AS members
       FROM whatsapp_group_snapshots WHERE group_jid = $1`,
    [groupJid, keys]
  );
  return rows.map((row) => ({
    eventId: row.event_id,
    atMs: Number(row.at_ms),
    members: row.members,
    isComplete: row.is_complete,
  }));
}

/**
 * Reads the membership facts of a group; with `keys`, only those about these participant keys.
 * `atMs` is epoch ms.
 */
export async function readFacts(
  client: pg.ClientBase,
  groupJid: string,
  keys: readonly string[] | null
): Promise<StoredMembershipFact[]> {
  const { rows } = await client.query<{
    participant_id: string;
    event_id: string;
    at_ms: string;
    is_present: boolean;
    role: MembershipRole | null;
    is_timed: boolean;
  }>(
    `SELECT participant_id, event_id, (extract(epoch FROM at) * 1000)::bigint AS at_ms, is_present, role, is_timed
       FROM whatsapp_membership_facts WHERE group_jid = $1 AND ($2::text[] IS NULL OR participant_id = ANY($2::text[]))`,
    [groupJid, keys]
  );
  return rows.map((row) => ({
    participantKey: row.participant_id,
    eventId: row.event_id,
    atMs: Number(row.at_ms),
    isPresent: row.is_present,
    role: row.role,
    isTimed: row.is_timed,
  }));
}
