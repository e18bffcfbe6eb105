import type pg from 'pg';
import { inTransaction } from '../pool.js';

/** The column types an analyst's file carries (Parquet logical types, by DuckDB's names). */
export type DatasetColumnType = 'VARCHAR' | 'TIMESTAMPTZ' | 'DATE' | 'INTEGER' | 'BIGINT' | 'DOUBLE' | 'BOOLEAN';

/** One dataset of `wa-lake export --parquet` (ADR 0025): a view of the lake as a file. */
export interface AnalystDataset {
  /** File name without extension, e.g. `messages`. */
  name: string;
  /** The view it is read from, every row of it. */
  view: string;
  columns: readonly { name: string; type: DatasetColumnType }[];
}

const col = (name: string, type: DatasetColumnType): { name: string; type: DatasetColumnType } => ({ name, type });

/**
 * The message read model and the daily views (docs/engagement.md "Parquet"): what a notebook needs to redo the
 * report, named by the same columns as the views.
 */
export const ANALYST_DATASETS: readonly AnalystDataset[] = [
  {
    name: 'messages',
    // Captured and exported messages, told apart by `source` (ADR 0029).
    view: 'analyst_messages',
    columns: [
      col('chat_jid', 'VARCHAR'),
      col('message_id', 'VARCHAR'),
      col('sender_id', 'VARCHAR'),
      col('sent_at', 'TIMESTAMPTZ'),
      col('kind', 'VARCHAR'),
      col('reply_to_id', 'VARCHAR'),
      col('mention_count', 'INTEGER'),
      col('edit_count', 'INTEGER'),
      col('last_edited_at', 'TIMESTAMPTZ'),
      col('deleted_at', 'TIMESTAMPTZ'),
      col('reaction_count', 'INTEGER'),
      col('source', 'VARCHAR'),
      col('is_counted', 'BOOLEAN'),
    ],
  },
  {
    name: 'member_activity_days',
    view: 'engagement_member_activity_days',
    columns: [
      col('group_jid', 'VARCHAR'),
      col('participant_id', 'VARCHAR'),
      col('member_id', 'VARCHAR'),
      col('person_key', 'VARCHAR'),
      col('day', 'DATE'),
      col('messages', 'INTEGER'),
      col('replies', 'INTEGER'),
      col('reactions_given', 'INTEGER'),
      col('poll_votes', 'INTEGER'),
    ],
  },
  {
    name: 'group_daily',
    view: 'engagement_group_daily',
    columns: [
      col('group_jid', 'VARCHAR'),
      col('day', 'DATE'),
      col('messages', 'INTEGER'),
      col('replies', 'INTEGER'),
      col('reactions', 'INTEGER'),
      col('active_members', 'INTEGER'),
      col('joins', 'INTEGER'),
      col('leaves', 'INTEGER'),
      col('member_count', 'INTEGER'),
    ],
  },
  {
    name: 'active_members',
    view: 'engagement_active_members',
    columns: [
      col('group_jid', 'VARCHAR'),
      col('day', 'DATE'),
      col('dau', 'INTEGER'),
      col('wau', 'INTEGER'),
      col('mau', 'INTEGER'),
    ],
  },
  {
    name: 'first_response_daily',
    view: 'engagement_first_response_daily',
    columns: [
      col('group_jid', 'VARCHAR'),
      col('day', 'DATE'),
      col('conversations', 'INTEGER'),
      col('answered', 'INTEGER'),
      col('median_minutes', 'DOUBLE'),
      col('p90_minutes', 'DOUBLE'),
      col('answered_within_1h', 'DOUBLE'),
      col('answered_within_24h', 'DOUBLE'),
    ],
  },
  {
    name: 'activity_hours',
    view: 'engagement_activity_hours',
    columns: [
      col('group_jid', 'VARCHAR'),
      col('day', 'DATE'),
      col('weekday', 'INTEGER'),
      col('hour', 'INTEGER'),
      col('messages', 'INTEGER'),
    ],
  },
  {
    name: 'participant_display_names',
    view: 'whatsapp_participant_display_names',
    columns: [
      col('participant_id', 'VARCHAR'),
      col('member_id', 'VARCHAR'),
      col('display_name', 'VARCHAR'),
      col('display_name_source', 'VARCHAR'),
    ],
  },
];

const BATCH_ROWS = 10_000;

/** A column as text PostgreSQL sends and DuckDB parses back: timestamps in UTC ISO 8601, the rest as cast. */
function textOf(column: { name: string; type: DatasetColumnType }): string {
  const quoted = `"${column.name}"`;
  return column.type === 'TIMESTAMPTZ'
    ? `to_char(${quoted} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
    : `${quoted}::text`;
}

/**
 * Reads every dataset in one repeatable-read transaction (one moment of the lake for all files), each through a
 * cursor, `BATCH_ROWS` rows at a time, every value as text or null in the columns' order. `write` gets each batch
 * and returns when it has taken it; `done` is called after a dataset's last batch.
 *
 * @returns the rows read per dataset name.
 * @throws pg.DatabaseError when a view cannot be read; whatever `write` or `done` throws.
 */
export async function readAnalystDatasets(
  pool: pg.Pool,
  sink: {
    write(dataset: AnalystDataset, rows: (string | null)[][]): Promise<void>;
    done(dataset: AnalystDataset): Promise<void>;
  }
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  return inTransaction(
    pool,
    async (client) => {
      await client.query(`SET LOCAL work_mem = '256MB'`);
      for (const dataset of ANALYST_DATASETS) {
        await client.query(
          `DECLARE analyst_rows NO SCROLL CURSOR FOR SELECT ${dataset.columns.map(textOf).join(', ')} FROM ${dataset.view}`
        );
        counts[dataset.name] = 0;
        for (;;) {
          const batch = await client.query<string[]>({
            text: `FETCH ${String(BATCH_ROWS)} FROM analyst_rows`,
            rowMode: 'array',
          });
          if (batch.rows.length === 0) break;
          counts[dataset.name] = (counts[dataset.name] ?? 0) + batch.rows.length;
          await sink.write(dataset, batch.rows);
        }
        await client.query('CLOSE analyst_rows');
        await sink.done(dataset);
      }
      return counts;
    },
    'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'
  );
}
