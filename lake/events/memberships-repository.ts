import type pg from 'pg';
import {
  foldGroupMemberships,
  type StoredMembershipFact,
  type StoredSnapshot,
} from '../projections/fold-group-memberships.js';
import type { MembershipState } from '../projections/membership-state.js';
import { isPnUser } from '../../common/whatsapp-jid.js';
import { findOwnerClosure, findPhoneOwners } from './identities-repository.js';
import { readFacts, readSnapshots } from './membership-facts-repository.js';

/**
 * Recomputes `whatsapp_group_memberships` rows of a group from every fact and snapshot stored for it
 * (architecture.md §9), with participant keys resolved through the LID↔phone aliases (ADR 0004, rules in
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
    owners = await findPhoneOwners(client, [...ids].filter(isPnUser));
  }
  const resolve = (key: string): string => owners.get(key) ?? key;
  const states = foldGroupMemberships({ facts, snapshots, resolve, ids: [...ids, ...[...ids].map(resolve)] });
  await writeMemberships(client, groupJid, states);
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
