import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describeProtectedFolder, type ProtectedFolders } from '../local-stack/protected-folders.js';
import { REPORT_HTML_START } from './render-html.js';
import { REPORT_CSV_COLUMNS } from './write-csv.js';

/** Thrown by {@link checkReportOutput} when `report --html`/`--csv` would overwrite what no report wrote. */
export class ReportOutputRefusedError extends Error {
  override readonly name = 'ReportOutputRefusedError';
}

const SNIFF_BYTES = 4096;

/** The first `SNIFF_BYTES` of a regular file, as text. */
function readStart(path: string): string {
  const buffer = Buffer.alloc(SNIFF_BYTES);
  const fd = openSync(path, 'r');
  try {
    return buffer.toString('utf8', 0, readSync(fd, buffer, 0, SNIFF_BYTES, 0));
  } finally {
    closeSync(fd);
  }
}

/** True when `path` is a regular file that a report did not write (its start is not the report's own). */
function isForeignFile(path: string, isOwn: (start: string) => boolean): boolean {
  if (!existsSync(path) || !statSync(path).isFile()) return false;
  return !isOwn(readStart(path));
}

/**
 * Refuses a `report` output that would destroy data ("No command deletes what it did not create", architecture.md
 * §10), before the lake is read: an `--html` file that does not start with the report's own first line
 * (`REPORT_HTML_START`, its generator marker) or a `--csv` file whose header is not the report's (unless `force`), and
 * `/`, `~`, the checkout or a folder above one of them as the `--csv` folder (always). A report's own earlier
 * output is overwritten.
 *
 * @throws ReportOutputRefusedError naming the file(s) or folder and what to do instead.
 */
export function checkReportOutput(
  options: { html?: string; csv?: string; force?: boolean },
  folders: ProtectedFolders
): void {
  if (options.html !== undefined) {
    const path = resolve(options.html);
    if (!options.force && isForeignFile(path, (start) => start.startsWith(REPORT_HTML_START))) {
      throw new ReportOutputRefusedError(
        `refusing to overwrite ${path}: it is not a wa-lake report; name a new file, or pass --force to replace it`
      );
    }
  }
  if (options.csv !== undefined) {
    const dir = resolve(options.csv);
    const reason = describeProtectedFolder(dir, { ...folders, workingDir: null });
    if (reason !== null) {
      throw new ReportOutputRefusedError(
        `refusing to write ${Object.keys(REPORT_CSV_COLUMNS).length} CSV files into ${dir}: ${reason}; name a folder of their own, such as ./report`
      );
    }
    if (options.force) return;
    const foreign = Object.entries(REPORT_CSV_COLUMNS)
      .filter(([name, columns]) => isForeignFile(join(dir, name), (start) => firstLine(start) === columns.join(',')))
      .map(([name]) => name);
    if (foreign.length > 0) {
      throw new ReportOutputRefusedError(
        `refusing to overwrite ${foreign.join(', ')} in ${dir}: not written by wa-lake report; ` +
          'name another folder, or pass --force to replace them'
      );
    }
  }
}

function firstLine(text: string): string {
  return text.split(/\r?\n/, 1)[0] ?? '';
}
