import type pg from 'pg';
import { InvertedReportRangeError, ReportRangeTooLongError, UnknownReportGroupError } from '../errors.js';
import { inTransaction } from '../pool.js';
import type { EngagementReport, EngagementReportOptions } from './engagement-report.js';
import { readEngagementReport } from './engagement-report-queries.js';

/**
 * The shape of a kept report's JSON. A release that changes `EngagementReport` changes this number, so a row an
 * older release kept is recomputed instead of served (its key no longer matches).
 */
export const KEPT_REPORT_FORMAT = 1;

/** A report kept at most this long after nobody asked for it again is deleted, not refreshed. */
const FORGET_UNREAD_AFTER_MS = 86_400_000;
/** Only reports someone asked for within this long are refreshed ahead of their age limit. */
const REFRESH_READ_WITHIN_MS = 3_600_000;

/** A report and the moment its numbers describe: every change committed before `asOf` is counted. */
export interface KeptReportRead {
  report: EngagementReport;
  asOf: Date;
  /** Whether the report was served from a kept row rather than counted for this read. */
  wasKept: boolean;
}

/** The identity of one report: its format, scope, range as asked (open ends stay open) and options. */
function keyOf(options: EngagementReportOptions): string {
  return JSON.stringify([
    KEPT_REPORT_FORMAT,
    options.groupJid,
    options.from,
    options.to,
    options.lurkerDays,
    options.topMembers,
  ]);
}

function optionsOf(key: string): EngagementReportOptions | null {
  const parsed: unknown = JSON.parse(key);
  if (!Array.isArray(parsed) || parsed[0] !== KEPT_REPORT_FORMAT) return null;
  const [, groupJid, from, to, lurkerDays, topMembers] = parsed as unknown[];
  const textOrNull = (value: unknown): value is string | null => value === null || typeof value === 'string';
  if (!textOrNull(groupJid) || !textOrNull(from) || !textOrNull(to)) return null;
  if (typeof lurkerDays !== 'number' || typeof topMembers !== 'number') return null;
  return { groupJid, from, to, lurkerDays, topMembers };
}

/**
 * Whole engagement reports kept for a bounded delay (ADR 0034, docs/engagement.md "Kept reports"). A read is served
 * from a kept report whose numbers are at most `maxAgeMs` old (of the current generation and the lake's zone), else
 * counted by `readEngagementReport` and kept. `refreshDue` recounts, ahead of the limit, the reports someone asked for
 * within the last hour, so a page asked for again is served without counting. With `maxAgeMs` 0 every read counts:
 * exact at commit.
 */
export class KeptEngagementReports {
  private readonly counting = new Map<string, Promise<KeptReportRead>>();

  constructor(
    private readonly pool: pg.Pool,
    readonly maxAgeMs: number
  ) {}

  /**
   * The report of `options`, no older than `maxAgeMs`.
   * @throws what `readEngagementReport` throws (unknown group, bad range, database errors).
   */
  async read(options: EngagementReportOptions): Promise<KeptReportRead> {
    if (this.maxAgeMs <= 0) return this.count(options, false);
    const key = keyOf(options);
    const kept = await this.pool.query<{ report: EngagementReport; as_of: Date }>(
      `UPDATE engagement_kept_reports k SET last_read_at = now()
         FROM engagement_kept_reports_state s
        WHERE k.report_key = $1 AND k.generation = s.generation AND k.time_zone = wa_engagement_time_zone()
          AND k.as_of >= now() - make_interval(secs => $2::double precision / 1000)
       RETURNING k.report, k.as_of`,
      [key, this.maxAgeMs]
    );
    const row = kept.rows[0];
    if (row) return { report: row.report, asOf: row.as_of, wasKept: true };
    return this.countOnce(key, options);
  }

  /**
   * Recounts the kept reports asked for within the last hour that are older than half of `maxAgeMs`, oldest first,
   * one at a time, and deletes those nobody asked for in a day or kept by an older generation or release.
   * @returns how many reports were recounted.
   * @throws pg.DatabaseError when a statement fails.
   */
  async refreshDue(): Promise<number> {
    if (this.maxAgeMs <= 0) return 0;
    await this.pool.query(
      `DELETE FROM engagement_kept_reports k USING engagement_kept_reports_state s
        WHERE k.generation <> s.generation OR k.last_read_at < now() - make_interval(secs => $1::double precision / 1000)
           OR NOT starts_with(k.report_key, $2)`,
      [FORGET_UNREAD_AFTER_MS, `[${String(KEPT_REPORT_FORMAT)},`]
    );
    const due = await this.pool.query<{ report_key: string }>(
      `SELECT report_key FROM engagement_kept_reports
        WHERE last_read_at >= now() - make_interval(secs => $1::double precision / 1000)
          AND as_of < now() - make_interval(secs => $2::double precision / 2000)
        ORDER BY as_of`,
      [REFRESH_READ_WITHIN_MS, this.maxAgeMs]
    );
    let refreshed = 0;
    for (const { report_key: key } of due.rows) {
      const options = optionsOf(key);
      if (options === null) continue;
      try {
        await this.countOnce(key, options);
        refreshed += 1;
      } catch (err) {
        if (!isReportRefusal(err)) throw err;
        // A kept report whose scope no longer reads (its group gone after an erasure or rebuild) stops being kept.
        await this.pool.query('DELETE FROM engagement_kept_reports WHERE report_key = $1', [key]);
      }
    }
    return refreshed;
  }

  /** One count per key at a time in this process: concurrent readers of the same report share it. */
  private countOnce(key: string, options: EngagementReportOptions): Promise<KeptReportRead> {
    const running = this.counting.get(key);
    if (running) return running;
    const counting = this.count(options, true).finally(() => this.counting.delete(key));
    this.counting.set(key, counting);
    return counting;
  }

  private async count(options: EngagementReportOptions, keep: boolean): Promise<KeptReportRead> {
    // Taken before the report's snapshot, so every commit before `asOf` is in the report, and an erasure committed
    // after it moves the generation on: the count is then served once but not kept.
    const head = await this.pool.query<{ generation: string; as_of: Date }>(
      'SELECT generation, now() AS as_of FROM engagement_kept_reports_state'
    );
    const { generation, as_of: asOf } = head.rows[0] ?? { generation: '0', as_of: new Date() };
    const started = performance.now();
    const report = await readEngagementReport(this.pool, options);
    if (keep) await this.keep(keyOf(options), generation, asOf, Math.round(performance.now() - started), report);
    return { report, asOf, wasKept: false };
  }

  private async keep(
    key: string,
    generation: string,
    asOf: Date,
    computedMs: number,
    report: EngagementReport
  ): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      // FOR SHARE waits for an erasure that is moving the generation on, then sees its new value: a report counted
      // before the erasure is never written after it.
      const state = await client.query<{ generation: string }>(
        'SELECT generation FROM engagement_kept_reports_state FOR SHARE'
      );
      if (state.rows[0]?.generation !== generation) return;
      await client.query(
        `INSERT INTO engagement_kept_reports AS k
           (report_key, generation, time_zone, as_of, last_read_at, computed_ms, report)
         VALUES ($1, $2, $3, $4, now(), $5, $6::json)
         ON CONFLICT (report_key) DO UPDATE
           SET generation = excluded.generation, time_zone = excluded.time_zone, as_of = excluded.as_of,
               last_read_at = now(), computed_ms = excluded.computed_ms, report = excluded.report
         WHERE k.as_of < excluded.as_of OR k.generation <> excluded.generation`,
        [key, generation, report.timeZone, asOf, computedMs, JSON.stringify(report)]
      );
    });
  }
}

function isReportRefusal(err: unknown): boolean {
  return (
    err instanceof UnknownReportGroupError ||
    err instanceof InvertedReportRangeError ||
    err instanceof ReportRangeTooLongError
  );
}

/**
 * Moves kept reports to a new generation and deletes them (ADR 0034): called in the transaction of an erasure, a
 * rebuild or a change of zone, so no report counted before it is served or written after it commits.
 */
export async function discardKeptEngagementReports(client: pg.ClientBase): Promise<void> {
  await client.query(`UPDATE engagement_kept_reports_state SET generation = generation + 1`);
  await client.query(`DELETE FROM engagement_kept_reports`);
}
