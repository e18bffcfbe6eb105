import { join, resolve } from 'node:path';
import { DuckDBInstance, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api';
import type pg from 'pg';
import { makeDirectory } from '../../common/make-directory.js';
import { readAnalystDatasets, type AnalystDataset } from '../../lake/index.js';
import { PARQUET_WRITER_KEY, PARQUET_WRITER_MARK } from './parquet-output-guard.js';

/** One file `wa-lake export --parquet` wrote. */
export interface WrittenParquetFile {
  dataset: string;
  path: string;
  rows: number;
}

const quoteIdentifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const quoteLiteral = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/** Creates the dataset's staging table (all text, as PostgreSQL sent it) and an appender on it. */
async function stage(connection: DuckDBConnection, dataset: AnalystDataset): Promise<DuckDBAppender> {
  const columns = dataset.columns.map((column) => `${quoteIdentifier(column.name)} VARCHAR`).join(', ');
  await connection.run(`CREATE OR REPLACE TABLE staging (${columns})`);
  return connection.createAppender('staging');
}

/**
 * Writes the message read model and the daily views (`ANALYST_DATASETS`) as one Parquet file each into `dir`
 * (created when missing): `messages.parquet`, `member_activity_days.parquet`, … (ADR 0025, docs/engagement.md
 * "Parquet"). The rows come from one repeatable-read transaction; an in-memory DuckDB (its node API) types them
 * and writes Parquet with snappy compression (the one every reader decodes), which pandas, polars and DuckDB read. Each
 * file's footer carries `written_by: wa-lake export --parquet`, so a later export replaces only its own files
 * (`checkParquetExportDir`, which the CLI runs first); a dataset with no rows is a file with its schema and no rows.
 *
 * @returns the files written, in `ANALYST_DATASETS` order.
 * @throws DirectoryNotCreatedError when `dir` cannot be created; pg.DatabaseError when the lake cannot be read;
 *   DuckDB's error when a file cannot be written.
 */
export async function writeParquetExport(pool: pg.Pool, dir: string): Promise<WrittenParquetFile[]> {
  const folder = resolve(dir);
  makeDirectory(folder);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const files: WrittenParquetFile[] = [];
  let appender: DuckDBAppender | undefined;
  try {
    const counts = await readAnalystDatasets(pool, {
      write: async (dataset, rows) => {
        appender ??= await stage(connection, dataset);
        for (const row of rows) {
          for (const value of row) {
            if (value === null) appender.appendNull();
            else appender.appendVarchar(value);
          }
          appender.endRow();
        }
      },
      done: async (dataset) => {
        const staged = appender ?? (await stage(connection, dataset));
        staged.flushSync();
        staged.closeSync();
        appender = undefined;
        const path = join(folder, `${dataset.name}.parquet`);
        const typed = dataset.columns
          .map((column) => `CAST(${quoteIdentifier(column.name)} AS ${column.type}) AS ${quoteIdentifier(column.name)}`)
          .join(', ');
        await connection.run(
          `COPY (SELECT ${typed} FROM staging) TO ${quoteLiteral(path)} (FORMAT parquet, COMPRESSION snappy, KV_METADATA {${PARQUET_WRITER_KEY}: ${quoteLiteral(PARQUET_WRITER_MARK)}})`
        );
        files.push({ dataset: dataset.name, path, rows: 0 });
      },
    });
    return files.map((file) => ({ ...file, rows: counts[file.dataset] ?? 0 }));
  } finally {
    appender?.closeSync();
    connection.closeSync();
    instance.closeSync();
  }
}
