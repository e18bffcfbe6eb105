import type pg from 'pg';
import { aliasPairs } from '../projections/message-identities.js';
import { type ParticipantRef } from '../projections/participant-ref.js';
import { isPnUser } from '../../common/whatsapp-jid.js';
import { recomputeParticipants, recordAliasStatements } from './identities-repository.js';
import { findGroupsNaming } from './membership-facts-repository.js';
import { recomputeMemberships } from './memberships-repository.js';
import { lockGroupsThenIdentities, lockPhones } from './projection-locks.js';

/** The people one event names, at the event's time. */
export interface IdentityStatement {
  at: Date;
  refs: readonly ParticipantRef[];
}

/**
 * Records the aliases and participant rows of many events at once, with the same
 * rules and lock protocol as `applyProjections` (`lake/events/projection-locks.ts`: phones, then the groups an
 * owner change touches, then LIDs): one set-based statement per step, whatever the number of events.
 * When an alias gives a phone another owner, every group naming that phone is recomputed (ADR 0004).
 * Runs inside the caller's transaction.
 *
 * @throws pg.DatabaseError when a statement fails (for example an id longer than its column).
 */
export async function applyIdentityStatements(
  client: pg.ClientBase,
  statements: readonly IdentityStatement[]
): Promise<void> {
  const refs = statements.flatMap((statement) => statement.refs);
  if (refs.length === 0) return;
  await lockPhones(
    client,
    refs.flatMap((ref) => (ref.phoneJid ? [ref.phoneJid] : []))
  );
  const { changes, writtenLids } = await recordAliasStatements(
    client,
    statements.flatMap(({ at, refs: named }) => aliasPairs(named).map((pair) => ({ ...pair, firstAt: at, lastAt: at })))
  );
  const movedPhones = changes.map((change) => change.phoneJid);
  const owners = changes.flatMap((change) => [change.before, change.after]).filter((lid) => lid !== null);
  const movedKeys = [...movedPhones, ...owners];
  const mergedGroups = await findGroupsNaming(client, movedPhones);
  // A pair whose alias row this statement left as it was changes no participant row: the transaction
  // that last wrote that row recomputed its LID. Lone ids and written or moved keys are recomputed.
  const written = new Set(writtenLids);
  const keys = refs.flatMap((ref) =>
    ref.lid !== null && ref.phoneJid !== null && !written.has(ref.lid) ? [] : [ref.participantId]
  );
  if (keys.length === 0 && movedKeys.length === 0) return;
  await lockGroupsThenIdentities(
    client,
    mergedGroups,
    [...keys, ...owners].filter((key) => !isPnUser(key))
  );
  await recomputeParticipants(client, [...keys, ...movedKeys]);
  for (const group of mergedGroups) await recomputeMemberships(client, group, movedKeys);
}
