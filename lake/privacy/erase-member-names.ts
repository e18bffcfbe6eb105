import type pg from 'pg';
import { eraseMemberReferences, PSEUDONYM_SERVER, pseudonymMentionName } from '../../common/erase-member-references.js';

/*
 * How `forget` finds the member in text other members wrote (architecture.md §14, ADR 0027): quoted copies of their
 * messages, `@<digits>` mentions, and their JIDs on every server.
 */

/** The member as erasure searches for them: JID digits, the JID and mention patterns, the run's pseudonym. */
export interface MemberNames {
  users: string[];
  /** `jidPatternSource(users)`. */
  pattern: string;
  /** `mentionPatternSource(users)`. */
  mention: string;
  pseudonym: string;
}

// A quote of a member erased by an earlier run (its `participant` already a pseudonym) is redacted too.
const QUOTED_AUTHOR_ERASED_BEFORE = `@${PSEUDONYM_SERVER}"`;

/** Replies quoting the member (or a member erased before) in rows `ids`: their quoted copy loses its content. */
export async function redactQuotesOfMember(
  client: pg.ClientBase,
  names: MemberNames,
  ids: string[]
): Promise<string[]> {
  const { rows } = await client.query<{ id: string; event_id: string; payload: string }>(
    `SELECT id, event_id, payload::text AS payload FROM whatsapp_event_logs
      WHERE id = ANY($1::uuid[]) AND strpos(payload::text, '"quotedMessage"') > 0
        AND (payload::text ~ $2 OR strpos(payload::text, $3) > 0) FOR UPDATE`,
    [ids, names.pattern, QUOTED_AUTHOR_ERASED_BEFORE]
  );
  const changed = rows
    .map((row) => ({ ...row, erased: eraseMemberReferences(row.payload, names.users, names.pseudonym) }))
    .filter((row) => row.erased !== row.payload);
  if (changed.length === 0) return [];
  await client.query(
    `UPDATE whatsapp_event_logs AS e SET payload = r.payload, updated_at = now()
       FROM unnest($1::uuid[], $2::jsonb[]) AS r(id, payload) WHERE e.id = r.id AND e.payload IS DISTINCT FROM r.payload`,
    [changed.map((row) => row.id), changed.map((row) => row.erased)]
  );
  return changed.map((row) => row.event_id);
}

/** `@<digits>` mentions and JIDs of the member in rows `ids` become the pseudonym's. */
export async function replaceNames(client: pg.ClientBase, names: MemberNames, ids: string[]): Promise<string[]> {
  const { rows } = await client.query<{ event_id: string }>(
    `UPDATE whatsapp_event_logs SET payload = ${replaceNamesSql('payload::text')}::jsonb
      WHERE id = ANY($5::uuid[]) AND payload::text ~ $6 RETURNING event_id`,
    [...replaceNamesParams(names), ids, eitherPattern(names)]
  );
  return rows.map((row) => row.event_id);
}

/** SQL that rewrites `expression` (text): mentions ($1 → $2), then JIDs ($3 → $4), with {@link replaceNamesParams}. */
export const replaceNamesSql = (expression: string): string =>
  `regexp_replace(regexp_replace(${expression}, $1, $2, 'g'), $3, $4, 'g')`;
/** The parameters $1–$4 of {@link replaceNamesSql}. */
export const replaceNamesParams = (names: MemberNames): string[] => [
  names.mention,
  `@${pseudonymMentionName(names.pseudonym)}`,
  names.pattern,
  names.pseudonym,
];
/** A pattern matching a JID or a mention of the member: which values {@link replaceNamesSql} changes. */
export const eitherPattern = (names: MemberNames): string => `${names.pattern}|${names.mention}`;
