import type Database from 'better-sqlite3';
import { openCollectorDatabase } from '../open-collector-database.js';
import { OutboxOpenError } from '../errors.js';

const BACKFILL_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS history_backfills (
  group_jid        TEXT PRIMARY KEY NOT NULL,
  since_ms         INTEGER NOT NULL,
  state            TEXT NOT NULL,
  cursor_id        TEXT NULL,
  cursor_from_me   INTEGER NULL,
  cursor_participant TEXT NULL,
  cursor_ts_ms     INTEGER NULL,
  anchor_ts_ms     INTEGER NULL,
  asked_at_ms      INTEGER NULL,
  attempts         INTEGER NOT NULL DEFAULT 0,
  pages            INTEGER NOT NULL DEFAULT 0,
  messages         INTEGER NOT NULL DEFAULT 0,
  updated_at_ms    INTEGER NOT NULL
);
`;

/**
 * `waiting`: due to be asked; `asked`: a request is out (re-asked after the answer timeout); `covered`: WhatsApp
 * answered back to `since`; `exhausted`: WhatsApp had nothing older (an empty page, or only messages already
 * held); `unanswered`: no answer after the last attempt.
 */
export type BackfillState = 'waiting' | 'asked' | 'covered' | 'exhausted' | 'unanswered';

/** One group's backfill: fetch history older than the cursor until `sinceMs` (ADR 0016). */
export interface Backfill {
  groupJid: string;
  sinceMs: number;
  state: BackfillState;
  /** The oldest message held: the next request asks for what came before it. Null until one is known. */
  cursor: { id: string; fromMe: boolean; participant: string | null; tsMs: number } | null;
  /** Time of the first cursor (the message the gap ends at). */
  anchorTsMs: number | null;
  askedAtMs: number | null;
  attempts: number;
  pages: number;
  messages: number;
  /** When the row last changed: requested, asked, answered or given up (epoch ms). */
  updatedAtMs: number;
}

interface Row {
  group_jid: string;
  since_ms: number;
  state: BackfillState;
  cursor_id: string | null;
  cursor_from_me: number | null;
  cursor_participant: string | null;
  cursor_ts_ms: number | null;
  anchor_ts_ms: number | null;
  asked_at_ms: number | null;
  attempts: number;
  pages: number;
  messages: number;
  updated_at_ms: number;
}

const toBackfill = (row: Row): Backfill => ({
  groupJid: row.group_jid,
  sinceMs: row.since_ms,
  state: row.state,
  cursor:
    row.cursor_id !== null && row.cursor_ts_ms !== null
      ? {
          id: row.cursor_id,
          fromMe: row.cursor_from_me === 1,
          participant: row.cursor_participant,
          tsMs: row.cursor_ts_ms,
        }
      : null,
  anchorTsMs: row.anchor_ts_ms,
  askedAtMs: row.asked_at_ms,
  attempts: row.attempts,
  pages: row.pages,
  messages: row.messages,
  updatedAtMs: row.updated_at_ms,
});

/**
 * The progress of history backfills, in the outbox file (own connection, WAL, `synchronous=FULL`) so a restart
 * resumes where the last answer left it and never re-asks what was answered (ADR 0016). One row per
 * group; `wa-lake backfill` writes rows from another process, the collector's runner advances them.
 */
export class BackfillStore {
  private constructor(
    private readonly db: Database.Database,
    private readonly now: () => number
  ) {}

  /**
   * Opens the table in the outbox file (created if missing).
   * @throws OutboxOpenError when the file cannot be opened or the table created.
   */
  static open(options: { path: string; now?: () => number }): BackfillStore {
    let db: Database.Database | undefined;
    try {
      db = openCollectorDatabase(options.path);
      db.exec(BACKFILL_SCHEMA_SQL);
      return new BackfillStore(db, options.now ?? Date.now);
    } catch (err) {
      db?.close();
      throw new OutboxOpenError(options.path, { cause: err });
    }
  }

  /**
   * Starts (or restarts) the backfill of a group back to `sinceMs`, from `cursor` (the oldest message held after
   * the gap) or, when null, from the oldest message the collector stores next. An unfinished backfill of the
   * group keeps its cursor and only moves `since` further back.
   */
  request(groupJid: string, sinceMs: number, cursor: Backfill['cursor']): Backfill {
    const current = this.get(groupJid);
    const isRunning = current?.state === 'waiting' || current?.state === 'asked';
    const next = isRunning && current.cursor ? current.cursor : cursor;
    this.db
      .prepare(
        `INSERT INTO history_backfills (group_jid, since_ms, state, cursor_id, cursor_from_me, cursor_participant,
           cursor_ts_ms, anchor_ts_ms, asked_at_ms, attempts, pages, messages, updated_at_ms)
         VALUES (@group, @since, 'waiting', @id, @fromMe, @participant, @ts, @ts, NULL, 0, 0, 0, @now)
         ON CONFLICT (group_jid) DO UPDATE SET
           since_ms = CASE WHEN @running THEN min(since_ms, @since) ELSE @since END, state = 'waiting',
           cursor_id = @id, cursor_from_me = @fromMe, cursor_participant = @participant, cursor_ts_ms = @ts,
           anchor_ts_ms = CASE WHEN @running AND anchor_ts_ms IS NOT NULL THEN anchor_ts_ms ELSE @ts END,
           asked_at_ms = NULL, attempts = 0,
           updated_at_ms = @now`
      )
      .run({
        group: groupJid,
        since: sinceMs,
        id: next?.id ?? null,
        fromMe: next ? Number(next.fromMe) : null,
        participant: next?.participant ?? null,
        ts: next?.tsMs ?? null,
        running: Number(isRunning),
        now: this.now(),
      });
    return this.get(groupJid) as Backfill;
  }

  /** The group's backfill, or null. */
  get(groupJid: string): Backfill | null {
    const row = this.db.prepare('SELECT * FROM history_backfills WHERE group_jid = ?').get(groupJid) as Row | undefined;
    return row ? toBackfill(row) : null;
  }

  /** Every backfill, oldest update first. */
  list(): Backfill[] {
    return (this.db.prepare('SELECT * FROM history_backfills ORDER BY updated_at_ms, group_jid').all() as Row[]).map(
      toBackfill
    );
  }

  /** Records a request sent for the current cursor. */
  markAsked(groupJid: string, atMs: number): void {
    this.db
      .prepare(
        `UPDATE history_backfills SET state = 'asked', asked_at_ms = @at, attempts = attempts + 1, updated_at_ms = @at
          WHERE group_jid = @group`
      )
      .run({ group: groupJid, at: atMs });
  }

  /** Records an answer: the new cursor (or none), the messages it held, and the state it leaves. */
  recordAnswer(groupJid: string, answer: { cursor: Backfill['cursor']; messages: number; state: BackfillState }): void {
    const { cursor } = answer;
    this.db
      .prepare(
        `UPDATE history_backfills SET state = @state, pages = pages + 1, messages = messages + @messages,
           cursor_id = COALESCE(@id, cursor_id), cursor_from_me = COALESCE(@fromMe, cursor_from_me),
           cursor_participant = CASE WHEN @id IS NULL THEN cursor_participant ELSE @participant END,
           cursor_ts_ms = COALESCE(@ts, cursor_ts_ms),
           asked_at_ms = NULL, attempts = 0, updated_at_ms = @now
         WHERE group_jid = @group`
      )
      .run({
        group: groupJid,
        state: answer.state,
        messages: answer.messages,
        id: cursor?.id ?? null,
        fromMe: cursor ? Number(cursor.fromMe) : null,
        participant: cursor?.participant ?? null,
        ts: cursor?.tsMs ?? null,
        now: this.now(),
      });
  }

  /** Sets the state only (a request that got no answer after its last attempt). */
  setState(groupJid: string, state: BackfillState): void {
    this.db
      .prepare('UPDATE history_backfills SET state = ?, updated_at_ms = ? WHERE group_jid = ?')
      .run(state, this.now(), groupJid);
  }

  /** Closes the connection (idempotent). */
  close(): void {
    if (this.db.open) this.db.close();
  }
}
