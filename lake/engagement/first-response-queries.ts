import type pg from 'pg';

/** Time to first response over the whole lake (ADR 0020, docs/engagement.md "First response"). */
export interface FirstResponseSummary {
  /** Conversations started (`engagement_first_responses` rows). */
  conversations: number;
  /** Median minutes to first response of the answered ones; null when none was answered. */
  firstResponseMedianMinutes: number | null;
  /**
   * Rows of the unanswered list (`engagement_unanswered`): questions and newcomers' first messages that no other
   * person answered within 24 hours.
   */
  unanswered: number;
}

/** Reads the summary from `engagement_first_responses` and `engagement_unanswered`. @throws pg.DatabaseError when the lake cannot be read. */
export async function readFirstResponseSummary(pool: pg.Pool): Promise<FirstResponseSummary> {
  const result = await pool.query<FirstResponseSummary>(
    `SELECT count(*)::int AS conversations,
            (percentile_cont(0.5) WITHIN GROUP (ORDER BY response_seconds) / 60.0)::float8 AS "firstResponseMedianMinutes",
            (SELECT count(*) FROM engagement_unanswered)::int AS unanswered
       FROM engagement_first_responses`
  );
  return result.rows[0] ?? { conversations: 0, firstResponseMedianMinutes: null, unanswered: 0 };
}
