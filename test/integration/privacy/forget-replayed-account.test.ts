import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LinkedAccountIdentifierError, runErasure } from '../../../cli/privacy/run-erasure.js';
import { TEST_ERASURE_KEY } from '../../helpers/erasure-key.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

// ADR 0014 decision 5 for a lake fed by a replay: its bodies carry no account_jid, only the account's own messages.
const fresh = useFreshLake();
const GROUP = '120363000000000971@g.us';
const ACCOUNT_LID = '100000000000971@lid';
const MEMBER_LID = '100000000000972@lid';
const T0 = Date.parse('2025-06-01T10:00:00Z') / 1000;

const message = (id: string, key: Record<string, unknown>, t: number): string =>
  JSON.stringify({
    type: 'messages.upsert',
    chat_jid: GROUP,
    upsert_type: 'notify',
    payload: { key: { remoteJid: GROUP, id, ...key }, messageTimestamp: t, message: { conversation: 'hi' } },
  });

const forget = (participant: string, force = false) =>
  runErasure({
    erasureKey: TEST_ERASURE_KEY,
    pool: fresh.lake.pool,
    outboxPath: join('/nonexistent', randomUUID()),
    temporalClient: null,
    participant,
    requestedBy: 'dpo@example.org',
    force,
  });

describe('forget of the account a replay captured (ADR 0014)', () => {
  it("refuses the author of the account's own messages without --force, though no body named the account", async () => {
    await fresh.lake.store(randomUUID(), message('OWN1', { fromMe: true, participant: ACCOUNT_LID }, T0));
    await fresh.lake.store(randomUUID(), message('M1', { fromMe: false, participant: MEMBER_LID }, T0 + 60));
    const authors = async (): Promise<string[]> =>
      (
        await fresh.lake.pool.query<{ author: string }>(
          `SELECT payload->'key'->>'participant' AS author FROM whatsapp_event_logs WHERE chat_jid = $1 ORDER BY 1`,
          [GROUP]
        )
      ).rows.map((row) => row.author);

    await expect(forget(ACCOUNT_LID)).rejects.toThrow(LinkedAccountIdentifierError);
    expect(await authors()).toEqual([ACCOUNT_LID, MEMBER_LID]);

    expect((await forget(MEMBER_LID)).refused).toBe(false);
    expect((await forget(ACCOUNT_LID, true)).refused).toBe(false);
    expect((await authors()).some((author) => author === ACCOUNT_LID || author === MEMBER_LID)).toBe(false);
  });
});
