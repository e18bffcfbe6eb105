import { isLidUser } from '../../common/whatsapp-jid.js';
import type { MessageProjectionItem } from './message-projection-item.js';
import { lidPhonesSql } from './identities-repository.js';
import { fitsIdColumn } from './id-column-length.js';
import { IDENTITY_LOCK_CLASS } from './projection-locks.js';

/** One LID named alone (no phone alias) by one event of a batch: `ev` event id, `id` the LID. */
export interface LoneLidFact {
  ev: string;
  id: string;
}

/**
 * The identity work of a batch when it is only lone LIDs — the sender of a group
 * message that carries no `participantAlt`, the usual unknown sender — so the raw-row INSERT can do it
 * inline ({@link loneLidParticipantCtes}): one autocommit statement instead of `BEGIN; INSERT; SAVEPOINT;
 * locks; upsert; RELEASE; COMMIT`.
 *
 * @returns the facts, or null when any item names a phone JID, a LID↔phone pair or another key, or an id
 *   longer than the column (it could fail the statement): the batch then takes `applyMessageProjections`,
 *   whose savepoints record a failing row's `whatsapp_projection_errors` row.
 */
export function loneLidsOf(items: readonly MessageProjectionItem[]): LoneLidFact[] | null {
  const facts: LoneLidFact[] = [];
  for (const item of items) {
    for (const ref of item.facts.identities) {
      const isLoneLid = ref.phoneJid === null && ref.lid === ref.participantId && isLidUser(ref.participantId);
      if (!isLoneLid || !fitsIdColumn(ref.participantId)) return null;
      facts.push({ ev: item.eventId, id: ref.participantId });
    }
  }
  return facts;
}

/**
 * CTEs (after the raw-row and read-model CTEs of the same statement) that give each lone LID of the
 * events inserted now its `whatsapp_participants` row — what `recomputeParticipants` does for such a key:
 * - A lone LID changes a participant row only by creating it. An existing row's phone column follows the
 *   alias table, and every writer of an alias recomputes it under the LID's identity lock
 *   (`applyIdentityStatements`, `applyProjections`). So `ON CONFLICT DO NOTHING` is the whole upsert, and it
 *   holds whatever the statement's snapshot: a row committed meanwhile is seen by the conflict check, an
 *   alias writer running concurrently updates the row after this one commits (order-independent).
 * - A new row takes the phone the alias table gives it (normally none: an alias writer creates the row).
 * - The identity locks (phase 3 of `lake/events/projection-locks.ts`, ascending key) are taken only once
 *   `readModelWritten` holds — after this statement's raw and read-model rows, the order of the transaction
 *   path (INSERT, then locks) — and the rows are written after them, in key order. So no transaction can
 *   wait on this one for a row while holding a lock this one waits for: deadlock-free as before.
 *
 * @param factsParam - the parameter (e.g. `$3`) holding the {@link LoneLidFact} array as JSON.
 * @param source - condition on `l.ev` selecting the events inserted now.
 * @param readModelWritten - a condition that reads every earlier data-modifying CTE (`true` when none).
 */
export function loneLidParticipantCtes(factsParam: string, source: string, readModelWritten: string): string {
  const lids = `SELECT DISTINCT l.id FROM jsonb_to_recordset(${factsParam}::jsonb) AS l(ev uuid, id text) WHERE ${source}`;
  return `
  wa_lone_lids AS MATERIALIZED (${lids}),
  wa_lone_lid_locks AS MATERIALIZED (
    SELECT pg_advisory_xact_lock(${String(IDENTITY_LOCK_CLASS)}, sorted.lock_key)
      FROM (SELECT DISTINCT hashtext(id) AS lock_key FROM wa_lone_lids WHERE ${readModelWritten} ORDER BY lock_key)
        AS sorted),
  wa_lone_lid_rows AS (
    INSERT INTO whatsapp_participants (id, lid, phone_jid)
    SELECT ids.id, ids.id, phones.phone_jid
      FROM wa_lone_lids AS ids
      LEFT JOIN (${lidPhonesSql('SELECT id FROM wa_lone_lids')}) AS phones ON phones.lid = ids.id
     WHERE (SELECT count(*) FROM wa_lone_lid_locks) >= 0
     ORDER BY ids.id
    ON CONFLICT (id) DO NOTHING)`;
}
