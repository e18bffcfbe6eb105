import type pg from 'pg';
import type { SendState } from '../../workflows/send-states.js';

/** What {@link forgetParticipantInSendTables} changed: counts, plus ids for the not-reached report. */
export interface SendErasureResult {
  counts: {
    /** `send_opt_ins` rows of the member, deleted: consent to receive messages is personal data. */
    optInsDeleted: number;
    /** `send_test_recipients` rows of the member, deleted. */
    testRecipientsDeleted: number;
    /** `outbound_messages` sent to the member whose text, recipient and metadata were redacted. */
    sentMessagesRedacted: number;
  };
  /** `outbound_messages.id` of every message sent to the member: their `sendMessage` histories keep them. */
  sentMessageIds: string[];
  /** The subset still short of a final state: their workflows still hold the recipient and may send. */
  unfinishedMessageIds: string[];
}

// States after which a sendMessage workflow sends nothing more (it may still wait for receipts).
const SENT_OR_FINAL: readonly string[] = ['sent', 'delivered', 'read', 'failed', 'expired'] satisfies SendState[];

/**
 * Erasure on the send side (ADR 0014 decision 5), inside the caller's transaction: deletes the member's opt-ins
 * and test-recipient rows, and redacts every message sent to them (`text` and `metadata` become null, `to_jid`
 * the run's pseudonym, `request_hash` a hash of the pseudonym so the old request cannot be confirmed by hashing
 * a guess). The row, its state and its transitions stay, so delivery figures and `GET` keep their shape.
 *
 * @param pattern - `jidPatternSource` of the member's JID users (any device suffix, LID or phone JID).
 */
export async function forgetParticipantInSendTables(
  client: pg.ClientBase,
  pattern: string,
  pseudonym: string
): Promise<SendErasureResult> {
  const optIns = await client.query(`DELETE FROM send_opt_ins WHERE phone_jid ~ $1`, [pattern]);
  const testRecipients = await client.query(`DELETE FROM send_test_recipients WHERE jid ~ $1`, [pattern]);
  const { rows } = await client.query<{ id: string; state: string }>(
    `UPDATE outbound_messages
        SET to_jid = $2::text, text = NULL, metadata = NULL, request_hash = encode(sha256(convert_to($2::text, 'UTF8')), 'hex'),
            updated_at = now()
      WHERE to_jid ~ $1
      RETURNING id, state`,
    [pattern, pseudonym]
  );
  return {
    counts: {
      optInsDeleted: optIns.rowCount ?? 0,
      testRecipientsDeleted: testRecipients.rowCount ?? 0,
      sentMessagesRedacted: rows.length,
    },
    sentMessageIds: rows.map((row) => row.id),
    unfinishedMessageIds: rows.filter((row) => !SENT_OR_FINAL.includes(row.state)).map((row) => row.id),
  };
}
