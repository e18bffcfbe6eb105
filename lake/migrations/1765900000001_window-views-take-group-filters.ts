import type { MigrationBuilder } from 'node-pg-migrate';

// The views whose common table expressions are read more than once: PostgreSQL materializes such a CTE over the
// whole lake before any filter of the query applies.
const VIEWS = [
  'engagement_first_responses',
  'engagement_unanswered_candidates',
  'engagement_group_daily',
  'engagement_cohort_retention',
  'engagement_newcomer_funnel',
];

// Each view keeps the definition the migrations before gave it (read back from the catalog, so none is copied), with
// every CTE of its outermost WITH levels marked as the given kind.
const redefine = (from: string, to: string): string => `
  DO $$
  DECLARE v text;
  BEGIN
    FOREACH v IN ARRAY ARRAY['${VIEWS.join("', '")}'] LOOP
      EXECUTE format('CREATE OR REPLACE VIEW %I AS %s', v,
        regexp_replace(pg_get_viewdef(v::regclass), '(WITH |\\), )(\\w+) AS ${from}\\(', '\\1\\2 AS ${to}(', 'g'));
    END LOOP;
  END $$;`;

/**
 * A group filter reaches the scans of the views that number a group's messages in windows (ADR 0025, "Bounded
 * reads"): their CTEs become `NOT MATERIALIZED`, so `WHERE group_jid = …` (or `= ANY(…)`) is pushed through the
 * windows, which all partition by group, down to the group's rows. Same definitions, same rows; a read for one group
 * costs that group's history instead of the lake's, and an unfiltered read computes a CTE once per reference
 * (measured at 1,000,000 messages: `engagement_first_responses` for one group-month 27 s → 4.8 s, the whole view
 * 39 s → 66 s, load 17–20).
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(redefine('', 'NOT MATERIALIZED '));
}

/** The CTEs are materialized again as PostgreSQL chooses. */
export function down(pgm: MigrationBuilder): void {
  pgm.sql(redefine('NOT MATERIALIZED ', ''));
}
