import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ANALYST_DATASETS } from '../../lake/index.js';
import { describeProtectedFolder, type ProtectedFolders } from '../local-stack/protected-folders.js';

/** Thrown by {@link checkParquetExportDir} when `export --parquet` would overwrite what it did not write. */
export class ParquetOutputRefusedError extends Error {
  override readonly name = 'ParquetOutputRefusedError';
}

/** The key-value metadata every file of `export --parquet` carries in its footer: how the guard knows its own. */
export const PARQUET_WRITER_KEY = 'written_by';
export const PARQUET_WRITER_MARK = 'wa-lake export --parquet';

/** `PAR1` at both ends, then the footer (its length in the 4 bytes before the trailing magic). */
const PARQUET_MAGIC = 'PAR1';

/** True when `path` is a Parquet file whose footer carries {@link PARQUET_WRITER_MARK}. */
function isOwnParquet(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const read = (length: number, position: number): Buffer => {
      const buffer = Buffer.alloc(length);
      return buffer.subarray(0, readSync(fd, buffer, 0, length, position));
    };
    if (size < 12 || read(4, 0).toString('latin1') !== PARQUET_MAGIC) return false;
    const tail = read(8, size - 8);
    if (tail.toString('latin1', 4) !== PARQUET_MAGIC) return false;
    const footerLength = tail.readUInt32LE(0);
    if (footerLength > size - 12) return false;
    return read(footerLength, size - 8 - footerLength).includes(PARQUET_WRITER_MARK);
  } finally {
    closeSync(fd);
  }
}

/**
 * Refuses an `export --parquet` folder that would lose data ("No command deletes what it did not create",
 * architecture.md §10), before the lake is read: `/`, `~`, the checkout or a folder above one of them, and a folder
 * where a file of an export's name (`messages.parquet`, …) exists that an export did not write. An earlier export's
 * files are overwritten.
 *
 * @throws ParquetOutputRefusedError naming the folder or the files and what to do instead.
 */
export function checkParquetExportDir(dir: string, folders: ProtectedFolders): void {
  const folder = resolve(dir);
  const reason = describeProtectedFolder(folder, { ...folders, workingDir: null });
  if (reason !== null) {
    throw new ParquetOutputRefusedError(
      `refusing to write ${ANALYST_DATASETS.length} Parquet files into ${folder}: ${reason}; ` +
        'name a folder of their own, such as ./parquet'
    );
  }
  const foreign = ANALYST_DATASETS.map((dataset) => `${dataset.name}.parquet`).filter((name) => {
    const path = join(folder, name);
    return existsSync(path) && statSync(path).isFile() && !isOwnParquet(path);
  });
  if (foreign.length > 0) {
    throw new ParquetOutputRefusedError(
      `refusing to overwrite ${foreign.join(', ')} in ${folder}: not written by wa-lake export --parquet; ` +
        'name another folder, or move them away'
    );
  }
}
