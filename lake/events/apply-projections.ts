import type pg from 'pg';
import {
  extractProjectionFacts,
  type ProjectionEvent,
  type ProjectionFacts,
} from '../projections/extract-projection-facts.js';
import { isPnUser } from '../../common/whatsapp-jid.js';
import { applyGroupWrites } from './groups-repository.js';
import { recomputeParticipants, recordAliases } from './identities-repository.js';
import { findGroupsNaming, insertMembershipFacts, insertSnapshot } from './membership-facts-repository.js';
import { recomputeMemberships } from './memberships-repository.js';
import { recordProjectionError } from './projection-errors.js';
import { lockGroupsThenIdentities, lockPhones } from './projection-locks.js';

/**
 * Updates groups, participants, aliases and memberships from one stored event (architecture.md §9, ADR 0004),
 * inside the caller's transaction. Order-independent: every visible row is recomputed from stored
 * facts, with phone-JID keys resolved to the LID that owns them, so an alias learnt late merges the
 * phone's participant row and memberships into the LID (and moves them again if the phone changes
 * owner). Locks follow the protocol of `lake/events/projection-locks.ts`: phones, then groups, then LIDs.
 *
 * @throws pg.DatabaseError when a statement fails (for example an id longer than its column).
 */
export async function applyProjections(
  client: pg.ClientBase,
  event: ProjectionEvent,
  facts = extractProjectionFacts(event)
): Promise<void> {
  const keys = facts.participants.map((ref) => ref.participantId);
  await refuseBeyondLockCapacity(client, facts);
  // Phase 1, phones: under these locks the owner of each phone, and the groups that name it, are stable.
  await lockPhones(
    client,
    facts.participants.flatMap((ref) => (ref.phoneJid ? [ref.phoneJid] : []))
  );
  const changes = await recordAliases(client, facts.participants, event.effectiveAt);
  const movedPhones = changes.map((change) => change.phoneJid);
  const owners = changes.flatMap((change) => [change.before, change.after]).filter((lid) => lid !== null);
  const movedKeys = [...movedPhones, ...owners];
  const mergedGroups = await findGroupsNaming(client, movedPhones);
  // Phases 2 and 3 only now that every group and LID the merge touches is known: no lock is taken late.
  await lockGroupsThenIdentities(
    client,
    facts.groupJid ? [facts.groupJid, ...mergedGroups] : mergedGroups,
    [...keys, ...owners].filter((key) => !isPnUser(key))
  );
  await recomputeParticipants(client, [...keys, ...movedKeys]);
  const recompute = new Map<string, string[] | null>(mergedGroups.map((group) => [group, movedKeys]));
  if (facts.groupJid) {
    const ownKeys = await applyGroupFacts(client, event, facts, facts.groupJid);
    const mergeKeys = recompute.get(facts.groupJid) ?? [];
    recompute.set(facts.groupJid, ownKeys === null ? null : [...ownKeys, ...mergeKeys]);
  }
  for (const [group, groupKeys] of recompute) {
    if (groupKeys?.length !== 0) await recomputeMemberships(client, group, groupKeys);
  }
}

/** Lock keys up to which an event is projected without asking PostgreSQL its lock capacity (a group of 1,024). */
const LOCKS_WITHOUT_CHECK = 2_100;

/**
 * Thrown before any lock is taken when an event names more participants than PostgreSQL's shared lock table can
 * lock at once (ADR 0014 decision 8): a `groups.metadata` of 60,000 participants would exhaust it, failing other
 * transactions too. Recorded in `whatsapp_projection_errors`; the raw row is stored, and `wa-lake rebuild`
 * projects it once `max_locks_per_transaction` is raised.
 */
export class ProjectionTooLargeError extends Error {
  override readonly name = 'ProjectionTooLargeError';
  constructor(
    readonly locksNeeded: number,
    readonly lockCapacity: number
  ) {
    super(
      `the event names ${locksNeeded} participant keys to lock at once, more than half of what this PostgreSQL ` +
        `can lock (${lockCapacity}: max_locks_per_transaction × (max_connections + max_prepared_transactions)); ` +
        'raise max_locks_per_transaction, then run wa-lake rebuild (ADR 0014)'
    );
  }
}

/** @throws ProjectionTooLargeError when the event's lock keys exceed half the server's lock table. */
async function refuseBeyondLockCapacity(client: pg.ClientBase, facts: ProjectionFacts): Promise<void> {
  const keys = new Set<string>();
  for (const ref of facts.participants) {
    keys.add(ref.participantId);
    if (ref.phoneJid) keys.add(ref.phoneJid);
  }
  if (keys.size <= LOCKS_WITHOUT_CHECK) return;
  const { rows } = await client.query<{ capacity: number }>(
    `SELECT (current_setting('max_locks_per_transaction')::int *
             (current_setting('max_connections')::int + current_setting('max_prepared_transactions')::int)) AS capacity`
  );
  const capacity = rows[0]?.capacity ?? 0;
  if (keys.size + 1 > capacity / 2) throw new ProjectionTooLargeError(keys.size + 1, capacity);
}

/**
 * Writes the group-level facts of an event (field writes, snapshot, membership facts).
 *
 * @returns the participant keys whose memberships to recompute, or null for the whole group (snapshot).
 */
async function applyGroupFacts(
  client: pg.ClientBase,
  event: ProjectionEvent,
  facts: ProjectionFacts,
  groupJid: string
): Promise<string[] | null> {
  if (Object.keys(facts.groupFields).length > 0 || facts.snapshot) {
    await applyGroupWrites(
      client,
      groupJid,
      facts.groupFields,
      { atMs: event.effectiveAt.getTime(), eventId: event.eventId, isTimed: facts.isTimed },
      facts.snapshot?.document ?? null
    );
  }
  if (facts.snapshot) {
    const { members, isComplete } = facts.snapshot;
    await insertSnapshot(client, groupJid, event.eventId, event.effectiveAt, members, isComplete);
    return null;
  }
  if (facts.memberships.length === 0) return [];
  await insertMembershipFacts(client, groupJid, event.eventId, event.effectiveAt, facts.memberships, facts.isTimed);
  return [...new Set(facts.memberships.map((fact) => fact.participant.participantId))];
}

/**
 * Runs {@link applyProjections} inside `SAVEPOINT projections`: on failure the savepoint is rolled
 * back and the error recorded in `whatsapp_projection_errors`, so the raw row still commits (architecture.md §8).
 *
 * @returns `{ error }` when a projection failed (and was recorded), `{}` otherwise.
 * @throws the rollback's error when even the savepoint cannot be rolled back (connection lost).
 */
export async function applyProjectionsInSavepoint(
  client: pg.ClientBase,
  event: ProjectionEvent,
  facts: ProjectionFacts = extractProjectionFacts(event)
): Promise<{ error?: Error }> {
  await client.query('SAVEPOINT projections');
  try {
    await applyProjections(client, event, facts);
    await client.query('RELEASE SAVEPOINT projections');
    return {};
  } catch (err) {
    await client.query('ROLLBACK TO SAVEPOINT projections');
    const error = err instanceof Error ? err : new Error(String(err));
    await recordProjectionError(client, event, error);
    return { error };
  }
}
