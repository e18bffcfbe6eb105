/**
 * Benchmark of a chat-export import (ADR 0023): a generated Android pt-BR export of N lines (default 200,000:
 * messages, multi-line messages, media, deleted messages and system lines) imported into an embedded, migrated
 * lake with `importChatExport`, then imported again (it must add nothing). Beside it, in the same run, the two
 * ceilings the import cannot beat: the parser alone (`parseChatExport`) and the raw insert of the same number of
 * `export.message` rows, prepared beforehand, through the same statement.
 * Run: `npm run bench:import` (`-- --lines N`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os, { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventIdFromName } from '../collector/event-id.js';
import { startEmbeddedPostgres } from '../dev-stack/embedded-postgres.js';
import { encodeEventLogRow, insertEventLogRecords } from '../lake/events/event-log-rows.js';
import { exportMessageIdNames, exportMessageRows } from '../lake/chat-export/export-message-rows.js';
import { importChatExport } from '../lake/chat-export/import-chat-export.js';
import { parseChatExport } from '../lake/chat-export/parse-chat-export.js';
import { runMigrations } from '../lake/migrate.js';
import { createPool } from '../lake/pool.js';

const GROUP = '120363000000000777@g.us';
const CEILING_GROUP = '120363000000000778@g.us';
const SENDERS = ['Ana', 'Bea', 'Caio', '+55 11 90000-0001', '+55 21 98888-0002', 'Duda', 'Edu', 'Fê'];
const BATCH_ROWS = 2_000;
const TIME_ZONE = 'America/Sao_Paulo';

function linesOption(): number {
  const index = process.argv.indexOf('--lines');
  const value = index === -1 ? undefined : Number(process.argv[index + 1]);
  return value !== undefined && Number.isInteger(value) && value > 0 ? value : 200_000;
}

/** One export's text of `lineCount` lines, a minute apart per message, in the Android pt-BR 24-hour layout. */
function generatedExport(lineCount: number): string {
  const lines: string[] = [];
  const start = Date.UTC(2019, 0, 1, 8, 0);
  for (let i = 0; lines.length < lineCount; i += 1) {
    const at = new Date(start + i * 60_000);
    const stamp =
      `${String(at.getUTCDate()).padStart(2, '0')}/${String(at.getUTCMonth() + 1).padStart(2, '0')}/` +
      `${String(at.getUTCFullYear())} ${String(at.getUTCHours()).padStart(2, '0')}:` +
      `${String(at.getUTCMinutes()).padStart(2, '0')}`;
    const sender = SENDERS[i % SENDERS.length] ?? 'Ana';
    if (i % 97 === 0) lines.push(`${stamp} - ${sender} adicionou +55 11 9${String(i).padStart(4, '0')}-0000`);
    else if (i % 41 === 0) lines.push(`${stamp} - ${sender}: <Mídia oculta>`);
    else if (i % 53 === 0) lines.push(`${stamp} - ${sender}: Esta mensagem foi apagada`);
    else if (i % 10 === 0)
      lines.push(`${stamp} - ${sender}: mensagem ${String(i)} com duas linhas`, 'e a segunda linha');
    else lines.push(`${stamp} - ${sender}: bom dia, pessoal! mensagem ${String(i)}`);
  }
  return lines.slice(0, lineCount).join('\n');
}

const seconds = (startedAt: number): number => (performance.now() - startedAt) / 1000;

/** The insert ceiling: the rows an import of `text` stores, prepared first, then inserted in the import's batches. */
async function insertCeiling(pool: ReturnType<typeof createPool>, text: string): Promise<number> {
  const parsed = parseChatExport(text);
  const sentAt = parsed.messages.map((_, index) => new Date(Date.UTC(2019, 0, 1) + index * 60_000));
  const ids = exportMessageIdNames(CEILING_GROUP, parsed.messages).map(eventIdFromName);
  const rows = exportMessageRows(CEILING_GROUP, parsed.messages, sentAt, ids, {
    timeZone: TIME_ZONE,
    importedAt: new Date(),
  }).map(encodeEventLogRow);
  const startedAt = performance.now();
  for (let start = 0; start < rows.length; start += BATCH_ROWS)
    await insertEventLogRecords(pool, rows.slice(start, start + BATCH_ROWS));
  return seconds(startedAt);
}

async function main(): Promise<void> {
  const lineCount = linesOption();
  const text = generatedExport(lineCount);
  const dataDir = mkdtempSync(join(tmpdir(), 'wa-lake-bench-export-pg-'));
  const postgres = await startEmbeddedPostgres({ dataDir, database: 'wa_lake_export_bench' });
  const pool = createPool(postgres.databaseUrl, { max: 2 });
  const loadBefore = loadavg()[0] ?? 0;
  try {
    await runMigrations({ databaseUrl: postgres.databaseUrl });
    let startedAt = performance.now();
    const parsed = parseChatExport(text);
    const parseSeconds = seconds(startedAt);
    const options = { groupJid: GROUP, text, timeZone: TIME_ZONE, eventIdOf: eventIdFromName };
    startedAt = performance.now();
    const first = await importChatExport(pool, options);
    const importSeconds = seconds(startedAt);
    startedAt = performance.now();
    const again = await importChatExport(pool, options);
    const reimportSeconds = seconds(startedAt);
    const ceilingSeconds = await insertCeiling(pool, text);
    const perSecond = (count: number, s: number): string => Math.round(count / s).toLocaleString('en-US');
    process.stdout.write(
      `chat-export import benchmark: ${lineCount.toLocaleString('en-US')} lines, ` +
        `${first.messages.toLocaleString('en-US')} messages, ${String(first.systemLines)} system lines, ` +
        `${String(first.unreadable.length)} unreadable\n` +
        `  import:    ${importSeconds.toFixed(1)} s (${perSecond(first.messages, importSeconds)} messages/s), ` +
        `${first.inserted.toLocaleString('en-US')} stored\n` +
        `  re-import: ${reimportSeconds.toFixed(1)} s, ${String(again.inserted)} stored (must be 0)\n` +
        `  ceilings, same run: parser alone ${parseSeconds.toFixed(1)} s (${String(parsed.messages.length)} messages); ` +
        `insert of the prepared rows ${ceilingSeconds.toFixed(1)} s; ` +
        `import / (parser + insert) = ${(importSeconds / (parseSeconds + ceilingSeconds)).toFixed(2)}\n` +
        `  load average (1 min) ${loadBefore.toFixed(1)} before, ${(loadavg()[0] ?? 0).toFixed(1)} after, ` +
        `${String(os.availableParallelism())} cores\n`
    );
    if (again.inserted !== 0) process.exitCode = 1;
  } finally {
    await pool.end();
    await postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
