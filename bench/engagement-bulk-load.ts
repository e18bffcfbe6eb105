import type pg from 'pg';

/** Sizes of a generated community (ADR 0013: 1,000,000 messages, 5,000 members, 50 groups). */
export interface CommunitySize {
  messages: number;
  members: number;
  groups: number;
  /** Days of history, ending now. */
  days: number;
}

export const BENCH_COMMUNITY: CommunitySize = { messages: 1_000_000, members: 5_000, groups: 50, days: 180 };

/**
 * Loads a synthetic community straight into the read-model tables with set-based SQL (the "equivalent
 * bulk load" ADR 0013 allows; the write path's own rate is measured by `bench/ingest-api.ts`).
 * Shape: every member is in two groups; messages come in sessions of ~7 (one member, group and day),
 * sessions are skewed towards a core of members (so there are heavy posters and lurkers); 1 member in
 * 10 posts under a phone JID that an alias merges into their LID; 70 % joined during the period
 * (cohorts), 5 % left; 30 % of messages are replies; reactions (30 % of messages, from a skewed core),
 * edits (2 %) and deletions (1 %). Deterministic (`setseed`).
 *
 * @throws pg.DatabaseError when a statement fails (e.g. the tables are not migrated).
 */
export async function bulkLoadCommunity(pool: pg.Pool, size: CommunitySize): Promise<void> {
  const client = await pool.connect();
  const run = (sql: string): Promise<unknown> => client.query(sql.replaceAll('$N', '$1::int'), [size.messages]);
  try {
    await client.query('BEGIN');
    await client.query('SELECT setseed(0.42)');
    await client.query(`CREATE TEMP TABLE bench_people ON COMMIT DROP AS
      SELECT m, '1' || lpad(m::text, 14, '0') || '@lid' AS lid, '55' || lpad(m::text, 11, '0') || '@s.whatsapp.net' AS phone,
             '120363' || lpad((m % ${size.groups})::text, 12, '0') || '@g.us' AS g1,
             '120363' || lpad(((m * 7 + 3) % ${size.groups})::text, 12, '0') || '@g.us' AS g2,
             now() - random() * interval '${size.days} days' AS joined
        FROM generate_series(0, ${size.members - 1}) AS m`);
    await client.query(`INSERT INTO whatsapp_groups (jid, subject)
      SELECT '120363' || lpad(g::text, 12, '0') || '@g.us', 'Group ' || g FROM generate_series(0, ${size.groups - 1}) g`);
    await client.query(`INSERT INTO whatsapp_lid_aliases (lid, phone_jid, first_seen_at, last_seen_at)
      SELECT lid, phone, now(), now() FROM bench_people WHERE m % 10 = 0`);
    await client.query(`INSERT INTO whatsapp_group_memberships (group_jid, participant_id, role, joined_at, left_at)
      SELECT DISTINCT ON (g, lid) g, lid, 'member', CASE WHEN m % 10 < 7 THEN joined END,
             CASE WHEN m % 20 = 1 THEN joined + interval '20 days' END
        FROM bench_people, LATERAL (VALUES (g1), (g2)) AS groups(g)`);
    await client.query(`INSERT INTO whatsapp_membership_facts (group_jid, participant_id, event_id, at, is_present, role)
      SELECT group_jid, participant_id, gen_random_uuid(), joined_at, true, 'member'
        FROM whatsapp_group_memberships WHERE joined_at IS NOT NULL
      UNION ALL
      SELECT group_jid, participant_id, gen_random_uuid(), left_at, false, NULL
        FROM whatsapp_group_memberships WHERE left_at IS NOT NULL`);
    // Rows go in in time order, as live capture writes them (the BRIN indexes on the times rely on it).
    // Conversations are bursty: messages come in sessions of ~7 (one member, one group, one day), two
    // sessions (two members of the same group) per conversation; members are skewed towards a core.
    await run(`CREATE TEMP TABLE bench_conversations ON COMMIT DROP AS
      SELECT k, floor(random() * ${size.groups})::int AS g,
             now() - floor(random() * ${size.days}) * interval '1 day' - interval '1 day' AS day_start
        FROM generate_series(0, ($N / 14)::int) AS k`);
    await run(`CREATE TEMP TABLE bench_sessions ON COMMIT DROP AS
      SELECT x.s, p.g1 AS g, CASE WHEN p.m % 10 = 0 THEN p.phone ELSE p.lid END AS sender, p.lid, x.day_start
        FROM (SELECT s, c.day_start,
                     c.g + ${size.groups} * floor(power(random(), 2) * ${Math.floor(size.members / size.groups)})::int AS m
                FROM generate_series(0, ($N / 7)::int - 1) AS s
                JOIN bench_conversations c ON c.k = s / 2) x
        JOIN bench_people p ON p.m = x.m`);
    await run(`INSERT INTO whatsapp_message_records
        (chat_jid, message_id, kind, is_message, sender_id, sent_at, reply_to_id, mention_count, record_rank, record_event_id)
      SELECT x.g, 'B' || i, (ARRAY['text','text','text','media','sticker','poll'])[1 + (i % 6)], true, x.sender,
             x.day_start + random() * interval '1 day',
             CASE WHEN i % 10 < 3 AND i > 1 THEN 'B' || (i - 1) END, (i % 7 = 0)::int, 2, gen_random_uuid()
        FROM generate_series(0, $N - 1) AS i
        JOIN bench_sessions x ON x.s = i % (($N / 7)::int)
       ORDER BY 6`);
    // Reactions come from the other member of the conversation, a few minutes after the message.
    await run(`INSERT INTO whatsapp_message_reactions (chat_jid, target_id, reactor_id, text, reacted_at, event_id)
      SELECT t.chat_jid, t.message_id, x.lid, '👍', t.sent_at + interval '5 minutes', gen_random_uuid()
        FROM (SELECT floor(random() * $N)::int AS i FROM generate_series(1, ($N * 3 / 10)::int)) s
        JOIN whatsapp_message_records t ON t.message_id = 'B' || s.i
        JOIN bench_sessions x ON x.s = ((s.i % (($N / 7)::int)) # 1)
       ORDER BY 5
      ON CONFLICT DO NOTHING`);
    await run(`INSERT INTO whatsapp_message_edits (chat_jid, target_id, edited_at)
      SELECT chat_jid, message_id, sent_at + interval '1 minute' FROM whatsapp_message_records
       WHERE message_id IN (SELECT 'B' || floor(random() * $N)::int FROM generate_series(1, ($N / 50)::int))
      ON CONFLICT DO NOTHING`);
    await run(`INSERT INTO whatsapp_message_revokes (chat_jid, target_id, deleted_at)
      SELECT chat_jid, message_id, sent_at + interval '2 minutes' FROM whatsapp_message_records
       WHERE message_id IN (SELECT 'B' || floor(random() * $N)::int FROM generate_series(1, ($N / 100)::int))
      ON CONFLICT DO NOTHING`);
    await client.query('COMMIT');
    await client.query('ANALYZE');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
