/**
 * The engagement figures of captures, and which of them a change moved (ADR 0019 "Consequences"): the demo capture
 * (`examples/capture.jsonl`, which must keep every figure), the mixed generator's capture (every case of ADR 0019 at
 * a plausible rate, `test/fixtures/engagement-cases/mixed-capture.ts`) and the chaos generator's (plain messages).
 *
 *   npx tsx scripts/engagement-figures.ts [--events 2000] [--before REF] [--out DIR]
 *
 * Each capture is replayed through this tree's collector pipeline and stored through its ingest repository into a
 * fresh lake on one embedded PostgreSQL; the figures go to `DIR/after-<capture>.json`. With `--before REF` the same
 * capture files are replayed by the tree at REF too (a temporary `git worktree`, this file copied into it, its own
 * pipeline, repository and migrations; only modules that both trees have are loaded), into `DIR/before-…json`, and a
 * table says per headline figure before → after, and whether each full figure set is unchanged.
 *
 * `--figures-only --server-url URL --capture PATH… --label L --out DIR` is the mode the copy at REF runs in.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { replayCapture } from '../collector/capture/replay-capture.js';
import { EventPipeline } from '../collector/event-pipeline.js';
import { OutboxStore } from '../collector/outbox-store.js';
import { createRootLogger } from '../common/logger.js';
import { startEmbeddedPostgres } from '../dev-stack/embedded-postgres.js';
import { createDatabase, dropDatabase } from '../dev-stack/scratch-databases.js';
import { parseIngestBody } from '../ingest-api/parse-ingest-body.js';
import { EventsRepository } from '../lake/events/events-repository.js';
import { runMigrations } from '../lake/migrate.js';
import { createPool } from '../lake/pool.js';

const { values: flags } = parseArgs({
  options: {
    events: { type: 'string', default: '2000' },
    before: { type: 'string' },
    out: { type: 'string' },
    'figures-only': { type: 'boolean', default: false },
    'server-url': { type: 'string' },
    capture: { type: 'string', multiple: true, default: [] },
    label: { type: 'string', default: 'after' },
  },
});
const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const print = (line: string): void => void process.stdout.write(`${line}\n`);

type Rows = Array<Record<string, unknown>>;
type Figures = Record<string, Rows>;

// Views both trees have, read the same way; every figure the report shows is computed from them.
const QUERIES: Record<string, string> = {
  totals: `SELECT sum(messages)::int AS messages, sum(replies)::int AS replies, sum(reactions)::int AS reactions,
                  sum(joins)::int AS joins, sum(leaves)::int AS leaves FROM engagement_group_daily`,
  groupDaily: `SELECT group_jid, to_char(day,'YYYY-MM-DD') AS day, messages, replies, reactions, active_members, joins,
                      leaves, member_count FROM engagement_group_daily ORDER BY 1, 2`,
  activeMembers: `SELECT group_jid, to_char(day,'YYYY-MM-DD') AS day, dau, wau, mau FROM engagement_active_members
                   ORDER BY 1 NULLS FIRST, 2`,
  memberTotals: `SELECT group_jid, participant_id, sum(messages)::int AS messages, sum(replies)::int AS replies,
                        sum(reactions_given)::int AS reactions_given, sum(reactions_received)::int AS reactions_received,
                        sum(edits)::int AS edits, sum(deletions)::int AS deletions
                   FROM engagement_member_daily GROUP BY 1, 2 ORDER BY 1, 2`,
  cohorts: `SELECT group_jid, to_char(cohort_week,'YYYY-MM-DD') AS cohort_week, week_offset, cohort_size, active_members,
                   retention::float8 FROM engagement_cohort_retention ORDER BY 1, 2, 3`,
  lurkers: `SELECT group_jid, participant_id, first_active_day::text, last_active_day::text FROM engagement_lurkers
             ORDER BY 1, 2`,
  membershipChanges: `SELECT group_jid, participant_id, at, change FROM engagement_membership_changes ORDER BY 1, 2, 3`,
  participants: `SELECT count(*)::int AS n FROM whatsapp_participants`,
};

/** Replays one capture through this tree's pipeline into a fresh lake and reads every figure. */
async function figuresOf(serverUrl: string, capture: string): Promise<Figures> {
  const scratch = mkdtempSync(join(tmpdir(), 'wa-lake-figures-'));
  const logger = createRootLogger({ level: 'silent' });
  const outbox = OutboxStore.open({ path: join(scratch, 'outbox.sqlite') });
  const url = await createDatabase(serverUrl, `wa_lake_figures_${String(process.pid)}_${String(Date.now())}`);
  const pool = createPool(url, { max: 4, logger });
  try {
    await runMigrations({ databaseUrl: url });
    const repository = new EventsRepository(pool, logger);
    const pipeline = new EventPipeline({ outbox, logger, getSelfJid: () => null });
    const summary = await replayCapture({ path: capture, pipeline });
    // The time the API would stamp: fixed, so two runs agree on anything derived from it.
    const receivedAt = new Date('2030-01-01T00:00:00Z');
    for (const eventId of summary.eventIds) {
      const row = outbox.get(eventId);
      if (row?.state !== 'pending') continue;
      await repository.store(eventId, parseIngestBody(Buffer.from(row.body, 'utf8'), 'application/json'), receivedAt);
    }
    const figures: Figures = {};
    for (const [name, sql] of Object.entries(QUERIES))
      figures[name] = (await pool.query<Record<string, unknown>>(sql)).rows;
    return JSON.parse(JSON.stringify(figures)) as Figures;
  } finally {
    outbox.close();
    await pool.end();
    await dropDatabase(url);
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function writeFigures(serverUrl: string, captures: string[], label: string, out: string): Promise<void> {
  for (const capture of captures) {
    const figures = await figuresOf(serverUrl, capture);
    writeFileSync(join(out, `${label}-${basename(capture, '.jsonl')}.json`), JSON.stringify(figures, null, 1));
    print(`${label}: ${basename(capture)} done`);
  }
}

/** The figures of ADR 0019's table, from one figure set. */
function headline(figures: Figures): Record<string, string> {
  const totals = figures['totals']?.[0] ?? {};
  const all = (figures['activeMembers'] ?? []).filter((row) => row['group_jid'] === null);
  const dau = all.reduce((sum, row) => sum + Number(row['dau']), 0) / Math.max(all.length, 1);
  return {
    messages: String(totals['messages']),
    'joins / leaves': `${String(totals['joins'])} / ${String(totals['leaves'])}`,
    participants: String(figures['participants']?.[0]?.['n']),
    'DAU, mean over days (all groups)': dau.toFixed(2),
    'MAU on the last day': String(all.at(-1)?.['mau']),
    'cohort rows': String(figures['cohorts']?.length ?? 0),
    'replies, reactions': `${String(totals['replies'])}, ${String(totals['reactions'])}`,
    'lurkers (rows)': String(figures['lurkers']?.length ?? 0),
  };
}

function compare(out: string, names: string[]): void {
  for (const name of names) {
    const read = (label: string): Figures =>
      JSON.parse(readFileSync(join(out, `${label}-${name}.json`), 'utf8')) as Figures;
    const [before, after] = [read('before'), read('after')];
    const sets = Object.keys(QUERIES).filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
    print('');
    print(`${name}: ${sets.length === 0 ? 'every figure set unchanged' : `changed sets: ${sets.join(', ')}`}`);
    const [b, a] = [headline(before), headline(after)];
    print(`  | figure | before | after | changed |`);
    print(`  | --- | --- | --- | --- |`);
    for (const key of Object.keys(a))
      print(`  | ${key} | ${b[key] ?? ''} | ${a[key] ?? ''} | ${b[key] === a[key] ? '' : 'yes'} |`);
  }
}

/** Writes the three captures (demo copied, two generated) into `out`; returns their paths. */
async function writeCaptures(out: string, events: number): Promise<string[]> {
  const demo = join(out, 'demo.jsonl');
  copyFileSync(join(ROOT, 'examples/capture.jsonl'), demo);
  // Generators of the test tree, loaded only here: the copy at REF never runs this function.
  const mixedModule = '../test/fixtures/engagement-cases/mixed-capture.js';
  const chaosModule = '../test/chaos/chaos-capture.js';
  const { writeMixedEngagementCapture } = (await import(mixedModule)) as {
    writeMixedEngagementCapture: (path: string, events: number) => void;
  };
  const { writeChaosCapture } = (await import(chaosModule)) as {
    writeChaosCapture: (path: string, n: number) => unknown;
  };
  const mixed = join(out, `mixed-${String(events)}.jsonl`);
  const chaos = join(out, `chaos-${String(events)}.jsonl`);
  writeMixedEngagementCapture(mixed, events);
  writeChaosCapture(chaos, events);
  return [demo, mixed, chaos];
}

/** Runs this file, copied into a temporary worktree at `ref`, in `--figures-only` mode. */
function runAtRef(ref: string, serverUrl: string, captures: string[], out: string): void {
  const tree = mkdtempSync(join(tmpdir(), 'wa-lake-figures-before-'));
  rmSync(tree, { recursive: true, force: true });
  execFileSync('git', ['worktree', 'add', '--detach', tree, ref], { cwd: ROOT, stdio: 'ignore' });
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
    mkdirSync(join(tree, 'scripts'), { recursive: true });
    copyFileSync(fileURLToPath(import.meta.url), join(tree, 'scripts/engagement-figures.ts'));
    const args = ['tsx', 'scripts/engagement-figures.ts', '--figures-only', '--server-url', serverUrl];
    for (const capture of captures) args.push('--capture', capture);
    const run = spawnSync('npx', [...args, '--label', 'before', '--out', out], { cwd: tree, stdio: 'inherit' });
    if (run.status !== 0) throw new Error(`the figures at ${ref} failed (exit ${String(run.status)})`);
  } finally {
    execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: ROOT, stdio: 'ignore' });
  }
}

async function main(): Promise<void> {
  const out = resolve(flags.out ?? mkdtempSync(join(tmpdir(), 'wa-lake-figures-out-')));
  mkdirSync(out, { recursive: true });
  if (flags['figures-only']) {
    if (!flags['server-url']) throw new Error('--figures-only needs --server-url');
    await writeFigures(flags['server-url'], flags.capture, flags.label, out);
    return;
  }
  const captures = await writeCaptures(out, Number(flags.events));
  const dataDir = mkdtempSync(join(tmpdir(), 'wa-lake-figures-pg-'));
  const postgres = await startEmbeddedPostgres({ dataDir, database: 'wa_lake_figures' });
  try {
    await writeFigures(postgres.databaseUrl, captures, 'after', out);
    if (flags.before) {
      runAtRef(flags.before, postgres.databaseUrl, captures, out);
      compare(
        out,
        captures.map((capture) => basename(capture, '.jsonl'))
      );
    }
    print(`\nfigures in ${out}${existsSync(join(out, 'before-demo.json')) ? ' (before-*.json, after-*.json)' : ''}`);
  } finally {
    await postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
