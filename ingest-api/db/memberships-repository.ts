import type pg from 'pg';
import type { MembershipFact } from '../projections/extract-projection-facts.js';
import { computeMembershipState, type MembershipEntry } from '../projections/membership-state.js';
import type { MembershipRole } from '../projections/participant-ref.js';

/** Records a snapshot's member list (participant id → role). Idempotent per (group, event). */
export async function insertSnapshot(
  client: pg.ClientBase,
  groupJid: string,
  eventId: string,
  at: Date,
  members: Record<string, MembershipRole>
): Promise<void> {
  await client.query(
    `INSERT INTO whatsapp_group_snapshots (group_jid, event_id, at, members) VALUES ($1, $2, $3, $4)
     ON CONFLICT (group_jid, event_id) DO NOTHING`,
    [groupJid, eventId, at, JSON.stringify(members)]
  );
}

/** Records membership facts of one event. Idempotent per (group, participant, event). */
export async function insertMembershipFacts(
  client: pg.ClientBase,
  groupJid: string,
  eventId: string,
  at: Date,
  facts: readonly MembershipFact[]
): Promise<void> {
  for (const fact of facts) {
    await client.query(
      `INSERT INTO whatsapp_membership_facts (group_jid, participant_id, event_id, at, is_present, role)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (group_jid, participant_id, event_id) DO NOTHING`,
      [groupJid, fact.participant.participantId, eventId, at, fact.isPresent, fact.role]
    );
  }
}

/**
 * Recomputes `whatsapp_group_memberships` rows of a group from every fact and every snapshot stored
 * for it (DESIGN §9): a snapshot listing a participant is a presence with its role, a snapshot not
 * listing a known participant is an absence at the snapshot's time. Caller holds the group lock.
 *
 * @param participantIds - only these participants, or null for everyone known in the group.
 */
export async function recomputeMemberships(
  client: pg.ClientBase,
  groupJid: string,
  participantIds: readonly string[] | null
): Promise<void> {
  const snapshots = await client.query<{ event_id: string; at_ms: string; members: Record<string, MembershipRole> }>(
    `SELECT event_id, (extract(epoch FROM at) * 1000)::bigint AS at_ms, members FROM whatsapp_group_snapshots WHERE group_jid = $1`,
    [groupJid]
  );
  const facts = await client.query<{
    participant_id: string;
    event_id: string;
    at_ms: string;
    is_present: boolean;
    role: MembershipRole | null;
  }>(
    `SELECT participant_id, event_id, (extract(epoch FROM at) * 1000)::bigint AS at_ms, is_present, role
       FROM whatsapp_membership_facts WHERE group_jid = $1 AND ($2::text[] IS NULL OR participant_id = ANY($2::text[]))`,
    [groupJid, participantIds]
  );
  const entries = new Map<string, MembershipEntry[]>();
  const entriesOf = (id: string): MembershipEntry[] => entries.get(id) ?? entries.set(id, []).get(id) ?? [];
  for (const row of facts.rows) {
    entriesOf(row.participant_id).push({
      atMs: Number(row.at_ms),
      eventId: row.event_id,
      isPresent: row.is_present,
      role: row.role,
    });
  }
  const everyone = participantIds ?? [
    ...new Set([...entries.keys(), ...snapshots.rows.flatMap((s) => Object.keys(s.members))]),
  ];
  for (const id of everyone) {
    for (const snapshot of snapshots.rows) {
      const role = Object.hasOwn(snapshot.members, id) ? snapshot.members[id] : undefined;
      entriesOf(id).push({
        atMs: Number(snapshot.at_ms),
        eventId: snapshot.event_id,
        isPresent: role !== undefined,
        role: role ?? null,
      });
    }
  }
  for (const id of everyone) {
    const state = computeMembershipState(entriesOf(id));
    if (!state) continue;
    await client.query(
      `INSERT INTO whatsapp_group_memberships (group_jid, participant_id, role, joined_at, left_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (group_jid, participant_id) DO UPDATE
         SET role = EXCLUDED.role, joined_at = EXCLUDED.joined_at, left_at = EXCLUDED.left_at, updated_at = now()`,
      [groupJid, id, state.role, toDate(state.joinedAtMs), toDate(state.leftAtMs)]
    );
  }
}

const toDate = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));
