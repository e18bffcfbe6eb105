/**
 * SQL of the per-key send quotas (ADR 0015), pasted into the accept statement
 * (`send-intent-statement.ts`). Periods are UTC calendar days and months. The usage row of each limited key
 * in a batch is locked in key order (two batches over the same keys cannot deadlock), then updated once with
 * how many of the batch's allowed requests it takes: at most what is left of both the day and the month. A
 * concurrent statement waits for that lock and, under READ COMMITTED, re-evaluates its update on the committed
 * row, so no interleaving lets more than the limit through.
 */

/** The current UTC day and month as SQL `date` expressions. */
export const UTC_DAY_SQL = `(now() AT TIME ZONE 'UTC')::date`;
export const UTC_MONTH_SQL = `date_trunc('month', now() AT TIME ZONE 'UTC')::date`;

const dayUsed = (row: string): string => `(CASE WHEN ${row}.day = ${UTC_DAY_SQL} THEN ${row}.day_used ELSE 0 END)`;
const monthUsed = (row: string): string =>
  `(CASE WHEN ${row}.month = ${UTC_MONTH_SQL} THEN ${row}.month_used ELSE 0 END)`;

/**
 * The quota CTEs, to follow a CTE `checked` with columns `o` (ordinal), `k` (key id), `is_allowed`,
 * `has_quota`, `dl` (daily limit or null), `ml` (monthly limit or null). Adds:
 * - `quota_wanted(k, n, dl, ml)`: allowed requests per limited key;
 * - `quota_locked(api_key_id)`: their usage rows, locked in key order;
 * - `quota_counted(k, granted, day_used, month_used)`: the updated rows (`granted` = taken by this statement);
 * - `quota_ranked(o, rn)`: the rank of each allowed request of a limited key (batch order).
 */
export function quotaCtes(): string {
  const granted = `GREATEST(0, LEAST(w.n, COALESCE(w.dl - ${dayUsed('u')}, w.n), COALESCE(w.ml - ${monthUsed('u')}, w.n)))`;
  return `
  quota_wanted AS (
    SELECT k, count(*)::int AS n, min(dl) AS dl, min(ml) AS ml FROM checked WHERE is_allowed AND has_quota GROUP BY k
  ), quota_locked AS (
    SELECT api_key_id FROM send_api_key_usage WHERE api_key_id IN (SELECT k FROM quota_wanted)
     ORDER BY api_key_id FOR UPDATE
  ), quota_counted AS (
    UPDATE send_api_key_usage u
       SET granted = ${granted},
           day_used = ${dayUsed('u')} + ${granted},
           month_used = ${monthUsed('u')} + ${granted},
           day = ${UTC_DAY_SQL},
           month = ${UTC_MONTH_SQL}
      FROM quota_wanted w JOIN quota_locked l ON l.api_key_id = w.k
     WHERE u.api_key_id = w.k
    RETURNING u.api_key_id AS k, u.granted, u.day_used, u.month_used
  ), quota_ranked AS (
    SELECT o, row_number() OVER (PARTITION BY k ORDER BY o) AS rn FROM checked WHERE is_allowed AND has_quota
  )`;
}

/**
 * SQL that gives back one request's slot after the accept statement counted it but a concurrent twin
 * committed the same `Idempotency-Key` first (its insert did nothing): an idempotent replay never counts.
 * Parameters: `$1` key id. Only the current period is corrected; a slot counted before a period turned is
 * gone with it.
 */
export const REFUND_QUOTA_SQL = `
  UPDATE send_api_key_usage
     SET day_used = CASE WHEN day = ${UTC_DAY_SQL} THEN GREATEST(day_used - 1, 0) ELSE day_used END,
         month_used = CASE WHEN month = ${UTC_MONTH_SQL} THEN GREATEST(month_used - 1, 0) ELSE month_used END
   WHERE api_key_id = $1`;
