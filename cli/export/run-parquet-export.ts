import { countNoun } from '../count-noun.js';
import { withLakePool } from '../commands/database.js';
import { printLine } from '../commands/shared.js';
import { currentProtectedFolders } from '../local-stack/protected-folders.js';
import { checkParquetExportDir } from './parquet-output-guard.js';
import type * as ParquetWriter from './write-parquet-export.js';

type ParquetWriterModule = typeof ParquetWriter;

/** Thrown when DuckDB's node API is not installed (the container image leaves it out: ADR 0018). */
export class ParquetWriterMissingError extends Error {
  override readonly name = 'ParquetWriterMissingError';
  constructor(options: { cause: unknown }) {
    super(
      'wa-lake export --parquet needs @duckdb/node-api, which this installation leaves out (the container image ' +
        'does): run it from a checkout with `npm ci`, pointed at the same DATABASE_URL',
      options
    );
  }
}

// DuckDB's 68 MB native library loads only for this command, and only where it is installed.
async function loadParquetWriter(): Promise<ParquetWriterModule> {
  try {
    return await import('./write-parquet-export.js');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && String(err).includes('@duckdb/'))
      throw new ParquetWriterMissingError({ cause: err });
    throw err;
  }
}

/**
 * `wa-lake export --parquet DIR` (ADR 0025): writes the Parquet files and prints one line per file.
 * @throws ParquetOutputRefusedError (checkParquetExportDir) before the lake is read; as writeParquetExport; ConfigError when `DATABASE_URL` is unset or invalid.
 */
export async function runParquetExport(dir: string): Promise<void> {
  checkParquetExportDir(dir, currentProtectedFolders());
  const { writeParquetExport } = await loadParquetWriter();
  const files = await withLakePool((pool) => writeParquetExport(pool, dir));
  printLine(`${countNoun(files.length, 'Parquet file')} written:`);
  for (const file of files) printLine(`  ${file.path}: ${countNoun(file.rows, 'row')}`);
}
