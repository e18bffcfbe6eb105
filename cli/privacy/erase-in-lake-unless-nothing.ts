import type pg from 'pg';
import { jidUsers } from '../../common/whatsapp-jid.js';
import {
  type ErasedIdentifierKind,
  inTransaction,
  type LakeErasureResult,
  writeErasureTombstones,
} from '../../lake/index.js';

/** The tombstones of one run (ADR 0027): written once something of the member was found, or the run is forced. */
export interface Tombstones {
  key: string;
  pseudonym: string;
  isWritten: boolean;
}

/** Thrown inside the lake transaction to roll it back: the lake holds nothing of the member. */
class NothingInLake extends Error {
  constructor(readonly result: LakeErasureResult) {
    super('nothing of the member in the lake');
  }
}

/**
 * Runs `erase` in one lake transaction that also writes the tombstones of the identifiers it returns (ADR 0027).
 * When `mayBeRefused` and the lake holds nothing of the member, the transaction is rolled back instead (tombstones
 * not written): a refused run commits nothing, and the caller writes them once another store held the member.
 */
export async function eraseInLakeUnlessNothing(
  pool: pg.Pool,
  tombstones: Tombstones,
  mayBeRefused: boolean,
  erase: (client: pg.PoolClient) => Promise<{
    result: LakeErasureResult;
    identifiers: Array<{ kind: ErasedIdentifierKind; value: string }>;
  }>
): Promise<LakeErasureResult> {
  try {
    return await inTransaction(pool, async (client) => {
      const { result, identifiers } = await erase(client);
      if (mayBeRefused && isNothingInLake(result.counts)) throw new NothingInLake(result);
      await writeErasureTombstones(client, tombstones.key, identifiers, tombstones.pseudonym);
      tombstones.isWritten = true;
      return result;
    });
  } catch (err) {
    if (err instanceof NothingInLake) return err.result;
    throw err;
  }
}

/** Writes the tombstones of `jids` outside the lake transaction: found beyond the lake, or the run went on. */
export async function writeTombstones(pool: pg.Pool, tombstones: Tombstones, jids: ReadonlySet<string>): Promise<void> {
  await writeErasureTombstones(pool, tombstones.key, userIdentifiers([...jids]), tombstones.pseudonym);
  tombstones.isWritten = true;
}

/** True when the lake transaction's counts show no change. */
export function isNothingInLake(lake: LakeErasureResult['counts']): boolean {
  const lakeTotal =
    lake.messageBodiesRedacted +
    lake.aliasesDeleted +
    lake.participantsDeleted +
    lake.memberLinksDeleted +
    lake.optInsDeleted +
    lake.testRecipientsDeleted +
    lake.sentMessagesRedacted +
    Object.values(lake.pseudonymized).reduce((sum, rows) => sum + rows, 0);
  return lakeTotal === 0;
}

/** The tombstone identifiers of JIDs: their digits, whatever the server and device (ADR 0027). */
export const userIdentifiers = (jids: readonly string[]): Array<{ kind: 'user'; value: string }> =>
  jidUsers(jids).map((value) => ({ kind: 'user', value }));
