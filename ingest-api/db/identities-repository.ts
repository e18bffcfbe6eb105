import type pg from 'pg';
import type { ParticipantRef } from '../projections/participant-ref.js';

/**
 * Records LID↔phone aliases and (re)computes `whatsapp_participants` rows for the given references
 * (DESIGN §9: LID-first identity, phone number as alias, never a LID in a phone column). A LID's
 * phone is its most recently seen alias (ties by phone JID), so the result does not depend on the
 * order of arrival. Caller holds the identity locks of every `participantId`.
 *
 * @param at - event time of the statement.
 */
export async function upsertIdentities(
  client: pg.ClientBase,
  refs: readonly ParticipantRef[],
  at: Date
): Promise<void> {
  for (const ref of refs) {
    if (ref.lid && ref.phoneJid) {
      await client.query(
        `INSERT INTO whatsapp_lid_aliases (lid, phone_jid, first_seen_at, last_seen_at) VALUES ($1, $2, $3, $3)
         ON CONFLICT (lid, phone_jid) DO UPDATE
           SET first_seen_at = LEAST(whatsapp_lid_aliases.first_seen_at, EXCLUDED.first_seen_at),
               last_seen_at = GREATEST(whatsapp_lid_aliases.last_seen_at, EXCLUDED.last_seen_at)`,
        [ref.lid, ref.phoneJid, at]
      );
    }
  }
  for (const id of new Set(refs.map((ref) => ref.participantId))) {
    const ref = refs.find((candidate) => candidate.participantId === id);
    if (!ref) continue;
    await client.query(
      `INSERT INTO whatsapp_participants (id, lid, phone_jid)
       VALUES ($1::text, $2::text, CASE WHEN $2::text IS NULL THEN $3::text ELSE
         (SELECT phone_jid FROM whatsapp_lid_aliases WHERE lid = $2::text ORDER BY last_seen_at DESC, phone_jid DESC LIMIT 1) END)
       ON CONFLICT (id) DO UPDATE SET phone_jid = EXCLUDED.phone_jid, updated_at = now()
         WHERE whatsapp_participants.phone_jid IS DISTINCT FROM EXCLUDED.phone_jid`,
      [id, ref.lid, ref.phoneJid]
    );
  }
}
