import type pg from 'pg';
import type { ReadModelFacts } from '../projections/extract-read-model-facts.js';
import { isMessageKind } from '../projections/message-content.js';
import { fitsIdColumn } from './id-column-length.js';
import { messageReadModelCtes, type PresentFactKinds } from './message-read-model-ctes.js';

const WRITE_STATEMENT = 'wa_write_message_facts';

/** The facts of many events as the facts object of `messageReadModelCtes`, keyed by event id. */
export interface EncodedMessageFacts {
  m: object[];
  e: object[];
  v: object[];
  x: object[];
}

/** Which fact lists of `facts` hold anything. */
export function presentFactKinds(facts: EncodedMessageFacts): PresentFactKinds {
  return { m: facts.m.length > 0, e: facts.e.length > 0, v: facts.v.length > 0, x: facts.x.length > 0 };
}

/** True when `facts` holds nothing to write. */
export function isEmptyEncodedFacts(facts: EncodedMessageFacts): boolean {
  return facts.m.length + facts.e.length + facts.v.length + facts.x.length === 0;
}

/** Appends every fact of `from` to `into`. */
export function mergeEncodedFacts(into: EncodedMessageFacts, from: EncodedMessageFacts): void {
  into.m.push(...from.m);
  into.e.push(...from.e);
  into.v.push(...from.v);
  into.x.push(...from.x);
}

/** An empty {@link EncodedMessageFacts}. */
export function emptyEncodedFacts(): EncodedMessageFacts {
  return { m: [], e: [], v: [], x: [] };
}

// Fixed parameters, not a rest array: this runs for every stored message on the ingest API's thread.
const fits = (a: string | null, b: string | null, c: string | null = null, d: string | null = null): boolean =>
  fitsIdColumn(a) && fitsIdColumn(b) && fitsIdColumn(c) && fitsIdColumn(d);

/**
 * Appends the facts of one event (`eventId`) to `into`. A fact naming an id longer than its column is
 * left out, so the read model can never make PostgreSQL refuse the raw row it rides with (architecture.md §8:
 * a projection never stops the raw row from being stored).
 *
 * @returns how many facts were left out for an over-long id (0 almost always), so the caller can say so.
 */
export function encodeMessageFacts(into: EncodedMessageFacts, eventId: string, facts: ReadModelFacts): number {
  let leftOut = 0;
  for (const r of facts.records) {
    if (!fits(r.chatJid, r.messageId, r.senderId, r.replyToId)) {
      leftOut += 1;
      continue;
    }
    into.m.push({
      ev: eventId,
      c: r.chatJid,
      i: r.messageId,
      k: r.kind,
      im: isMessageKind(r.kind),
      s: r.senderId,
      a: r.sentAt.toISOString(),
      rt: r.replyToId,
      mc: r.mentionCount,
      rk: r.rank,
    });
  }
  for (const e of facts.edits) {
    if (!fits(e.chatJid, e.targetId)) {
      leftOut += 1;
      continue;
    }
    into.e.push({ ev: eventId, c: e.chatJid, t: e.targetId, a: new Date(e.editedAtMs).toISOString() });
  }
  for (const v of facts.revokes) {
    if (!fits(v.chatJid, v.targetId)) {
      leftOut += 1;
      continue;
    }
    into.v.push({ ev: eventId, c: v.chatJid, t: v.targetId, a: v.deletedAt.toISOString() });
  }
  for (const x of facts.reactions) {
    if (!fits(x.chatJid, x.targetId, x.reactorId)) {
      leftOut += 1;
      continue;
    }
    into.x.push({ ev: eventId, c: x.chatJid, t: x.targetId, r: x.reactorId, x: x.text, a: x.reactedAt.toISOString() });
  }
  return leftOut;
}

/**
 * Writes message facts inside the caller's transaction (projection path and `wa-lake rebuild`).
 * Idempotent: writing the same facts again changes nothing.
 *
 * @throws pg.DatabaseError when PostgreSQL refuses a value (e.g. an id longer than 255 characters).
 */
export async function writeMessageFacts(client: pg.ClientBase, facts: EncodedMessageFacts): Promise<void> {
  if (isEmptyEncodedFacts(facts)) return;
  const ctes = messageReadModelCtes('$1', 'true', presentFactKinds(facts));
  await client.query({
    name: `${WRITE_STATEMENT}_${ctes.variant}`,
    text: `WITH ${ctes.sql} SELECT 1`,
    values: [JSON.stringify(facts)],
  });
}
