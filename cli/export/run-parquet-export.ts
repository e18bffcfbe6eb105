import { countNoun } from '../count-noun.js';
import { withLakePool } from '../commands/database.js';
import { printLine } from '../commands/shared.js';
import { writeParquetExport } from './write-parquet-export.js';

/**
 * `wa-lake export --parquet DIR` (issue #28 item 6): writes the Parquet files and prints one line per file.
 * @throws as writeParquetExport; ConfigError when `DATABASE_URL` is unset or invalid.
 */
export async function runParquetExport(dir: string): Promise<void> {
  const files = await withLakePool((pool) => writeParquetExport(pool, dir));
  printLine(`${countNoun(files.length, 'Parquet file')} written:`);
  for (const file of files) printLine(`  ${file.path}: ${countNoun(file.rows, 'row')}`);
}
