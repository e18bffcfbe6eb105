import type pg from 'pg';
import type { MembershipFact } from '../projections/extract-projection-facts.js';
import {
  foldGroupMemberships,
  type StoredMembershipFact,
  type StoredSnapshot,
} from '../projections/fold-group-memberships.js';
import type { MembershipState } from '../projections/membership-state.js';
import { isPhoneJid, type MembershipRole } from '../projections/participant-ref.js';
import { findOwnerClosure, findPhoneOwners } from './identities-repository.js';

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
 * to recompute when the owner of a phone JID changes (issue #5). Caller holds the phone locks of
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
 * Recomputes `whatsapp_group_memberships` rows of a group from every fact and snapshot stored for it
 * (architecture.md §9), with participant keys resolved through the LID↔phone aliases (issue #5, rules in
 * `foldGroupMemberships`). Rows of keys merged into a LID, or left without any fact, are deleted.
 * Caller holds the group lock, and the phone locks of any phone whose owner it changed.
 *
 * @param keys - participant keys whose rows may have changed (their owners and owned phones are
 *   included), or null for every key known in the group (after a snapshot).
 */
export async function recomputeMemberships(
  client: pg.ClientBase,
  groupJid: string,
  keys: readonly string[] | null
): Promise<void> {
  let owners: Map<string, string>;
  let ids: Set<string>;
  let facts: StoredMembershipFact[];
  let snapshots: StoredSnapshot[];
  if (keys) {
    owners = await findOwnerClosure(client, keys);
    ids = new Set([...keys, ...owners.keys(), ...owners.values()]);
    facts = await readFacts(client, groupJid, [...ids]);
    snapshots = await readSnapshots(client, groupJid, [...ids]);
  } else {
    facts = await readFacts(client, groupJid, null);
    snapshots = await readSnapshots(client, groupJid, null);
    const existing = await client.query<{ participant_id: string }>(
      'SELECT participant_id FROM whatsapp_group_memberships WHERE group_jid = $1',
      [groupJid]
    );
    ids = new Set([
      ...facts.map((fact) => fact.participantKey),
      ...snapshots.flatMap((snapshot) => Object.keys(snapshot.members)),
      ...existing.rows.map((row) => row.participant_id),
    ]);
    owners = await findPhoneOwners(client, [...ids].filter(isPhoneJid));
  }
  const resolve = (key: string): string => owners.get(key) ?? key;
  const states = foldGroupMemberships({ facts, snapshots, resolve, ids: [...ids, ...[...ids].map(resolve)] });
  await writeMemberships(client, groupJid, states);
}

/**
 * Reads the snapshots of a group; with `keys`, only the members under those keys (enough to tell
 * presence from absence for them, and far less to parse than a large group's full lists).
 */
async function readSnapshots(
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

async function readFacts(
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

async function writeMemberships(
  client: pg.ClientBase,
  groupJid: string,
  states: ReadonlyMap<string, MembershipState | null>
): Promise<void> {
  const rows = [...states].flatMap(([id, state]) => (state ? [{ id, ...state }] : []));
  const gone = [...states].flatMap(([id, state]) => (state ? [] : [id]));
  await client.query(
    `WITH gone AS (DELETE FROM whatsapp_group_memberships WHERE group_jid = $1 AND participant_id = ANY($6::text[]))
     INSERT INTO whatsapp_group_memberships (group_jid, participant_id, role, joined_at, left_at)
     SELECT $1, id, role, joined_at, left_at
       FROM unnest($2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[]) AS incoming (id, role, joined_at, left_at)
     ON CONFLICT (group_jid, participant_id) DO UPDATE
       SET role = EXCLUDED.role, joined_at = EXCLUDED.joined_at, left_at = EXCLUDED.left_at, updated_at = now()
       WHERE (whatsapp_group_memberships.role, whatsapp_group_memberships.joined_at, whatsapp_group_memberships.left_at)
             IS DISTINCT FROM (EXCLUDED.role, EXCLUDED.joined_at, EXCLUDED.left_at)`,
    [
      groupJid,
      rows.map((row) => row.id),
      rows.map((row) => row.role),
      rows.map((row) => toDate(row.joinedAtMs)),
      rows.map((row) => toDate(row.leftAtMs)),
      gone,
    ]
  );
}

const toDate = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));
