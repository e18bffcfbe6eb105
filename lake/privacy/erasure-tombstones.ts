import { createHmac } from 'node:crypto';
import type pg from 'pg';
import type { JsonValue } from '../../common/json-value.js';
import { MESSAGE_BODY_TYPES, redactMessageBody } from '../../common/redact-message-body.js';
import { eraseMemberReferences } from '../../common/erase-member-references.js';
import { mentionedUsersIn, personJidUsersIn } from '../../common/whatsapp-jid.js';
import type { ParsedIngestBody } from '../events/parsed-ingest-body.js';

/** What an erased identifier is: the digits of a person JID, or the name of a chat-export sender (ADR 0023). */
export type ErasedIdentifierKind = 'user' | 'name';

/**
 * Thrown when tombstones exist but this process has no `ERASURE_KEY` (ADR 0027): it cannot tell whether an event
 * is from or about an erased member, so it stores nothing rather than bring one back.
 */
export class ErasureKeyMissingError extends Error {
  override readonly name = 'ErasureKeyMissingError';
  constructor() {
    super(
      'ERASURE_KEY is not set, but the lake holds erasure tombstones: set the same ERASURE_KEY as wa-lake forget uses ' +
        '(wa-lake dev keeps it in the data folder, file erasure-key) so events can be checked against them'
    );
  }
}

/** The SQLSTATE `whatsapp_erasure_fence` raises when the tombstones changed since a caller read them. */
export const STALE_ERASURE_CHECK_SQLSTATE = 'WL001';

/** True for the error `whatsapp_erasure_fence` raises: read the tombstones again and retry. */
export function isStaleErasureCheck(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === STALE_ERASURE_CHECK_SQLSTATE;
}

/**
 * The keyed hash of one erased identifier (ADR 0027): HMAC-SHA256 under `ERASURE_KEY`, which is never stored in the
 * database, so a dump of the lake does not let phone numbers (a small space) be found by trying them all.
 */
export function erasureHash(key: string, kind: ErasedIdentifierKind, value: string): string {
  return createHmac('sha256', key).update(`${kind}:${value}`).digest('hex');
}

/**
 * Records the identifiers `forget` erased, in its transaction (`client`): later events naming them are stored
 * pseudonymized to `pseudonym` (ADR 0027). An identifier erased before keeps its first pseudonym, the one the lake
 * already holds for it.
 * @returns how many tombstones were new.
 */
export async function writeErasureTombstones(
  client: pg.Pool | pg.ClientBase,
  key: string,
  identifiers: ReadonlyArray<{ kind: ErasedIdentifierKind; value: string }>,
  pseudonym: string
): Promise<number> {
  if (identifiers.length === 0) return 0;
  const hashes = [...new Set(identifiers.map((id) => erasureHash(key, id.kind, id.value)))];
  const { rowCount } = await client.query(
    `INSERT INTO whatsapp_erasure_tombstones (identifier_hash, pseudonym)
     SELECT h, $2 FROM unnest($1::text[]) AS h ON CONFLICT (identifier_hash) DO NOTHING`,
    [hashes, pseudonym]
  );
  return rowCount ?? 0;
}

/** The tombstones as one statement read them, with the identity generation of the same snapshot. */
export interface TombstoneSnapshot {
  generation: number;
  /** Keyed hash → pseudonym. */
  pseudonyms: ReadonlyMap<string, string>;
}

/** Reads every tombstone and the identity generation in one statement (one snapshot). */
export async function readTombstoneSnapshot(queryable: pg.Pool | pg.ClientBase): Promise<TombstoneSnapshot> {
  const { rows } = await queryable.query<{ generation: string; identifier_hash: string | null; pseudonym: string }>(
    `SELECT g.generation, t.identifier_hash, t.pseudonym
       FROM whatsapp_identity_generation g LEFT JOIN whatsapp_erasure_tombstones t ON true`
  );
  const pseudonyms = new Map<string, string>();
  for (const row of rows) if (row.identifier_hash !== null) pseudonyms.set(row.identifier_hash, row.pseudonym);
  return { generation: Number(rows[0]?.generation ?? 0), pseudonyms };
}

type JsonRecord = { [key: string]: JsonValue };
const asRecord = (value: JsonValue | undefined): JsonRecord | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;

/**
 * The delivery as `forget` would have left it in the lake (ADR 0027), or `body` itself when it names no erased
 * identifier: a message an erased member wrote loses its content and sender name (`redactMessageBody`, as
 * `forget` redacts authored messages); a reply quoting one loses the quoted copy, a `@<digits>` mention of them in
 * text reads the pseudonym's name, and every JID of an erased member (any device, any server: the JID's digits are
 * the tombstone's key) becomes the pseudonym its tombstone holds — in the payload, the chat JID and the account
 * fields alike (`eraseMemberReferences`, as `forget` does).
 *
 * @throws ErasureKeyMissingError when there are tombstones and `key` is null.
 */
export function pseudonymizeErased(
  body: ParsedIngestBody,
  snapshot: TombstoneSnapshot,
  key: string | null
): ParsedIngestBody {
  if (snapshot.pseudonyms.size === 0) return body;
  if (key === null) throw new ErasureKeyMissingError();
  const erased = new Map<string, string[]>();
  for (const user of new Set([...personJidUsersIn(body.bodyText), ...mentionedUsersIn(body.bodyText)])) {
    const pseudonym = snapshot.pseudonyms.get(erasureHash(key, 'user', user));
    if (pseudonym !== undefined) erased.set(pseudonym, [...(erased.get(pseudonym) ?? []), user]);
  }
  if (erased.size === 0) return body;
  const erasedUsers = new Set([...erased.values()].flat());
  let text = body.bodyText;
  if (MESSAGE_BODY_TYPES.includes(body.type) && isAuthoredBy(body.payload, erasedUsers)) {
    const whole = asRecord(JSON.parse(text) as JsonValue) ?? {};
    whole['payload'] = redactMessageBody(body.type, body.payload, { dropSenderName: true }) as JsonValue;
    text = JSON.stringify(whole);
  }
  for (const [pseudonym, users] of erased) text = eraseMemberReferences(text, users, pseudonym);
  const whole = asRecord(JSON.parse(text) as JsonValue) ?? {};
  const stringOrNull = (value: JsonValue | undefined): string | null => (typeof value === 'string' ? value : null);
  return {
    ...body,
    bodyText: text,
    payload: whole['payload'] ?? body.payload,
    chatJid: body.chatJid === null ? null : (stringOrNull(whole['chat_jid']) ?? body.chatJid),
    accountJid: body.accountJid === null ? null : (stringOrNull(whole['account_jid']) ?? body.accountJid),
    accountLid: body.accountLid === null ? null : (stringOrNull(whole['account_lid']) ?? body.accountLid),
  };
}

/** True when the message's sender (`key.participant` or `key.participantAlt`) is one of `users`, as `forget` tests. */
function isAuthoredBy(payload: JsonValue, users: ReadonlySet<string>): boolean {
  const key = asRecord(asRecord(payload)?.['key']);
  return ['participant', 'participantAlt'].some((field) => {
    const jid = key?.[field];
    return typeof jid === 'string' && personJidUsersIn(jid).some((user) => users.has(user));
  });
}

/**
 * An exported message row (ADR 0023) as `forget` leaves one of an erased sender (ADR 0027): when its sender — a phone
 * number (`key.participant`) or a name (`pushName`) — has a tombstone, the text and the name go and the message
 * counts for the tombstone's pseudonym, as `forget` redacts exported messages; otherwise `row` itself.
 *
 * @throws ErasureKeyMissingError when there are tombstones and `key` is null.
 */
export function pseudonymizeErasedExportRow<Row extends { bodyText: string }>(
  row: Row,
  snapshot: TombstoneSnapshot,
  key: string | null
): Row {
  if (snapshot.pseudonyms.size === 0) return row;
  if (key === null) throw new ErasureKeyMissingError();
  const whole = asRecord(JSON.parse(row.bodyText) as JsonValue) ?? {};
  const payload = asRecord(whole['payload']) ?? {};
  const participant = asRecord(payload['key'])?.['participant'];
  const name = payload['pushName'];
  const [user] = typeof participant === 'string' ? personJidUsersIn(participant) : [];
  const pseudonym =
    (user === undefined ? undefined : snapshot.pseudonyms.get(erasureHash(key, 'user', user))) ??
    (typeof name === 'string' ? snapshot.pseudonyms.get(erasureHash(key, 'name', name)) : undefined);
  if (pseudonym === undefined) return row;
  const kept = Object.fromEntries(Object.entries(payload).filter(([field]) => field !== 'pushName'));
  const redacted = {
    ...kept,
    key: { ...(asRecord(payload['key']) ?? {}), participant: pseudonym },
    message: { conversation: null, _redacted: true },
  };
  return { ...row, bodyText: JSON.stringify({ ...whole, payload: redacted }) };
}
