import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkReportOutput } from '../../../../cli/report/report-output-guard.js';
import { renderReportHtml } from '../../../../cli/report/render-html.js';
import { REPORT_CSV_COLUMNS } from '../../../../cli/report/write-csv.js';
import { emptyReport } from '../../../helpers/engagement-report.js';

describe('checkReportOutput', () => {
  let dir: string;
  let folders: { workingDir: string; homeDir: string; checkoutDir: string };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wa-lake-report-guard-'));
    folders = { workingDir: dir, homeDir: join(dir, 'home'), checkoutDir: join(dir, 'checkout') };
    mkdirSync(folders.homeDir);
    mkdirSync(folders.checkoutDir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses to overwrite a file that is not a report, unless --force', () => {
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'my notes\n');
    expect(() => checkReportOutput({ html: notes }, folders)).toThrow(
      `refusing to overwrite ${notes}: it is not a wa-lake report; name a new file, or pass --force to replace it`
    );
    expect(() => checkReportOutput({ html: notes, force: true }, folders)).not.toThrow();
  });

  it('overwrites an earlier HTML report and writes a new file', () => {
    const earlier = join(dir, 'earlier.html');
    writeFileSync(earlier, renderReportHtml(emptyReport(), new Date('2030-01-01T00:00:00Z')));
    expect(() => checkReportOutput({ html: earlier }, folders)).not.toThrow();
    expect(() => checkReportOutput({ html: join(dir, 'new.html') }, folders)).not.toThrow();
  });

  it('refuses a file that only quotes the report title or its first lines further down', () => {
    const notes = join(dir, 'notes.html');
    writeFileSync(notes, 'my notes\n<title>WhatsApp engagement report</title>\n');
    expect(() => checkReportOutput({ html: notes }, folders)).toThrow(`refusing to overwrite ${notes}`);
    writeFileSync(notes, `my notes\n${renderReportHtml(emptyReport(), new Date('2030-01-01T00:00:00Z'))}`);
    expect(() => checkReportOutput({ html: notes }, folders)).toThrow(`refusing to overwrite ${notes}`);
  });

  it('refuses CSV files another program wrote, names them, and overwrites its own', () => {
    const out = join(dir, 'csv');
    mkdirSync(out);
    writeFileSync(join(out, 'groups.csv'), `${REPORT_CSV_COLUMNS['groups.csv'].join(',')}\r\nx,y,1,1\r\n`);
    expect(() => checkReportOutput({ csv: out }, folders)).not.toThrow();
    writeFileSync(join(out, 'totals.csv'), 'budget,amount\nrent,900\n');
    expect(() => checkReportOutput({ csv: out }, folders)).toThrow(
      `refusing to overwrite totals.csv in ${out}: not written by wa-lake report`
    );
    expect(() => checkReportOutput({ csv: out, force: true }, folders)).not.toThrow();
  });

  it('refuses /, the home folder and the checkout as the CSV folder, even with --force', () => {
    expect(() => checkReportOutput({ csv: '/', force: true }, folders)).toThrow('it is the filesystem root');
    expect(() => checkReportOutput({ csv: folders.homeDir }, folders)).toThrow('it is your home folder');
    expect(() => checkReportOutput({ csv: folders.checkoutDir }, folders)).toThrow('it is the wa-lake checkout');
    expect(() => checkReportOutput({ csv: dir }, folders)).toThrow('it holds your home folder');
  });
});
