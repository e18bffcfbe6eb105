import type pg from 'pg';
import { applyGroupWrites, lockGroup, lockIdentities } from '../db/groups-repository.js';
import { upsertIdentities } from '../db/identities-repository.js';
import { insertMembershipFacts, insertSnapshot, recomputeMemberships } from '../db/memberships-repository.js';
import { extractProjectionFacts, type ProjectionEvent, type ProjectionFacts } from './extract-projection-facts.js';

export type { ProjectionEvent } from './extract-projection-facts.js';

/**
 * Updates groups, participants, aliases and memberships from one stored event (DESIGN §9), inside
 * the caller's transaction. Order-independent: every visible row is recomputed from stored facts.
 */
export async function applyProjections(
  client: pg.ClientBase,
  event: ProjectionEvent,
  facts = extractProjectionFacts(event)
): Promise<void> {
  const atMs = event.effectiveAt.getTime();
  if (facts.groupJid) await lockGroup(client, facts.groupJid);
  if (facts.participants.length > 0) {
    await lockIdentities(
      client,
      facts.participants.map((ref) => ref.participantId)
    );
    await upsertIdentities(client, facts.participants, event.effectiveAt);
  }
  if (!facts.groupJid) return;
  if (Object.keys(facts.groupFields).length > 0 || facts.snapshot) {
    await applyGroupWrites(
      client,
      facts.groupJid,
      facts.groupFields,
      { atMs, eventId: event.eventId },
      facts.snapshot?.document ?? null
    );
  }
  if (facts.snapshot) {
    await insertSnapshot(client, facts.groupJid, event.eventId, event.effectiveAt, facts.snapshot.members);
    await recomputeMemberships(client, facts.groupJid, null);
  } else if (facts.memberships.length > 0) {
    await insertMembershipFacts(client, facts.groupJid, event.eventId, event.effectiveAt, facts.memberships);
    await recomputeMemberships(client, facts.groupJid, [
      ...new Set(facts.memberships.map((fact) => fact.participant.participantId)),
    ]);
  }
}

/** True when an event changes no projection (plain messages, reactions, …): the raw insert is enough. */
export function hasProjectionWork(facts: ProjectionFacts): boolean {
  return facts.groupJid !== null || facts.participants.length > 0;
}

/**
 * Runs {@link applyProjections} inside `SAVEPOINT projections`: on failure the savepoint is rolled
 * back and the error recorded in `whatsapp_projection_errors`, so the raw row still commits (DESIGN §8).
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
    return { error };
  }
}
