// ADR 0017: how long `wa-lake` takes before it does anything, measured from outside as a user waits for it.
// Rounds alternate `node -e 0` (the floor: Node itself), `wa-lake --help` and `wa-lake members list` against an
// embedded, migrated, empty lake (a database command: connect, one query, print). Prints the medians, the
// command's overhead over the floor, and the targets: --help < 1 s, a database command's overhead < 1.5 s.
// `npx tsx bench/cli-startup.ts [--rounds N]` (default 7; about 20 s on a quiet 2-core box).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCompiled } from '../bin/ensure-compiled.js';
import { startEmbeddedPostgres } from '../dev-stack/embedded-postgres.js';
import { runMigrations } from '../lake/index.js';

const CLI = fileURLToPath(new URL('../bin/wa-lake.js', import.meta.url));
const roundsFlag = process.argv.indexOf('--rounds');
const ROUNDS = roundsFlag > 0 ? Number(process.argv[roundsFlag + 1]) : 7;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Wall seconds of one run; throws when it does not exit 0. */
function timeRun(args: string[], env: NodeJS.ProcessEnv): number {
  const startedAt = process.hrtime.bigint();
  const run = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
  if (run.status !== 0) throw new Error(`${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return seconds;
}

const dataDir = mkdtempSync(join(tmpdir(), 'wa-lake-bench-cli-'));
chmodSync(dataDir, 0o755);
ensureCompiled((reason) => process.stdout.write(`compiling dist/ first (${reason})\n`));
const postgres = await startEmbeddedPostgres({ dataDir: join(dataDir, 'pg'), database: 'wa_lake_bench' });
try {
  await runMigrations({ databaseUrl: postgres.databaseUrl });
  const env = { PATH: process.env['PATH'] ?? '', DATABASE_URL: postgres.databaseUrl, LOG_LEVEL: 'warn' };
  const runs = { floor: [] as number[], help: [] as number[], database: [] as number[] };
  timeRun([CLI, 'members', 'list'], env);
  for (let round = 0; round < ROUNDS; round++) {
    runs.floor.push(timeRun(['-e', '0'], env));
    runs.help.push(timeRun([CLI, '--help'], env));
    runs.database.push(timeRun([CLI, 'members', 'list'], env));
  }
  const floor = median(runs.floor);
  const help = median(runs.help);
  const database = median(runs.database);
  const lines = [
    `load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}, ${ROUNDS} rounds, medians:`,
    `  node -e 0 (floor)        ${floor.toFixed(3)} s`,
    `  wa-lake --help           ${help.toFixed(3)} s  (target < 1 s)`,
    `  wa-lake members list     ${database.toFixed(3)} s  overhead over the floor ${(database - floor).toFixed(3)} s (target < 1.5 s)`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  process.stdout.write(
    `${JSON.stringify({ rounds: ROUNDS, floorS: floor, helpS: help, databaseCommandS: database })}\n`
  );
} finally {
  await postgres.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
