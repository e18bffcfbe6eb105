import { chmodSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { loadCollectorConfig, readLinkedAccount } from '../../collector/index.js';
import { envPostgresUrl, parseConfig } from '../../common/config-schema.js';
import { resolveErasureKey } from '../../common/erasure-key.js';
import { makeDirectory } from '../../common/make-directory.js';
import { packageRoot } from '../../common/package-root.js';
import { createDataConverter } from '../../common/temporal-data-converter.js';
import { createPool, exportSenderNameOf, parseRetentionPeriodMs, redactOldMessageBodies } from '../../lake/index.js';
import { describeProtectedFolder } from '../local-stack/protected-folders.js';
import { type ErasureReport, runErasure } from '../privacy/run-erasure.js';
import { runParticipantExport } from '../privacy/run-participant-export.js';
import { countNoun } from '../count-noun.js';
import { createProgressPrinter } from '../progress-line.js';
import { asOptionParser, outputPath } from './option-parsers.js';
import { connectTemporalClient, printLine } from './shared.js';

const databaseUrl = (): string => parseConfig(z.object({ DATABASE_URL: envPostgresUrl }), process.env).DATABASE_URL;
const currentUser = (): string => {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
};

/** Registers `wa-lake retention apply`, `wa-lake forget` and `wa-lake export` (architecture.md §14). */
export function registerPrivacyCommands(program: Command): void {
  registerExportCommand(program);
  const retention = program.command('retention').description('redact old message bodies in the lake');
  retention
    .command('apply')
    .description('redact message bodies older than a period; ids, times, type, group, participant and kind stay')
    .requiredOption(
      '--older-than <period>',
      'age by event time, e.g. 90d, 12w, 36h (at most 36500d)',
      asOptionParser(parseRetentionPeriodMs)
    )
    .option('--requested-by <name>', 'who runs it (recorded in whatsapp_retention_runs)', currentUser())
    .action(async (options: { olderThan: number; requestedBy: string }) => {
      const cutoff = new Date(Date.now() - options.olderThan);
      const pool = createPool(databaseUrl());
      try {
        const result = await redactOldMessageBodies(pool, cutoff, {
          requestedBy: options.requestedBy,
          onProgress: createProgressPrinter('retention', 'rows'),
        });
        printLine(`redacted the message bodies of ${result.redactedEvents} events older than ${result.cutoff}`);
        for (const row of result.skipped)
          printLine(
            `skipped event ${row.eventId}: PostgreSQL cannot render it (SQLSTATE ${row.sqlState}); see ADR 0014`
          );
      } finally {
        await pool.end();
      }
    });

  program
    .command('forget')
    .description(
      "erase one member's personal data: the lake, the projections, the send tables, the outbox and the dead letters"
    )
    .requiredOption(
      '--participant <id>',
      'LID (…@lid), phone JID (…@s.whatsapp.net), phone number, or name:NAME (a chat-export sender)'
    )
    .option('--requested-by <name>', 'who runs it (recorded in whatsapp_erasure_runs)', currentUser())
    .option('--json', 'print the report as JSON')
    .option('--force', "erase the linked account's own identifiers, or record a request that matches nothing")
    .action(async (options: { participant: string; requestedBy: string; json?: boolean; force?: boolean }) => {
      const config = loadCollectorConfig(process.env);
      const erasureKey = resolveErasureKey(process.env, config.OUTBOX_PATH);
      if (erasureKey === null) {
        process.exitCode = 1;
        process.stderr.write(
          'forget: ERASURE_KEY is not set and the data folder holds no erasure-key file; set the ERASURE_KEY the ' +
            'ingest API runs with (ADR 0027), so the lake can refuse to bring the member back. Nothing was changed\n'
        );
        return;
      }
      const account = await readLinkedAccount(config.AUTH_DIR);
      const pool = createPool(databaseUrl());
      let temporalUnreachableReason: string | undefined;
      // A chat-export sender (`name:…`) lives only in the lake: Temporal holds nothing of it (ADR 0023).
      const temporal =
        exportSenderNameOf(options.participant) !== undefined
          ? null
          : await connectTemporalClient(
              config.temporal,
              undefined,
              createDataConverter(config.PAYLOAD_ENCRYPTION_KEYS)
            ).catch((err: unknown) => {
              temporalUnreachableReason = err instanceof Error ? err.message : String(err);
              return null;
            });
      try {
        const report = await runErasure({
          pool,
          outboxPath: config.OUTBOX_PATH,
          temporalClient: temporal?.client ?? null,
          temporalUnreachableReason,
          payloadsEncrypted: (config.PAYLOAD_ENCRYPTION_KEYS?.length ?? 0) > 0,
          participant: options.participant,
          requestedBy: options.requestedBy,
          temporalNamespace: config.TEMPORAL_NAMESPACE,
          accountJids: [account.phoneJid, account.lid].filter((jid): jid is string => jid !== null),
          force: options.force === true,
          erasureKey,
        });
        failWhenIncomplete(report);
        if (failWhenNothingFound(report, options.participant)) return;
        if (options.json) return printLine(JSON.stringify(report));
        const { lake, outboxRowsRewritten, deadLetterEntriesRedacted } = report.counts;
        printLine(
          `erasure run ${report.runId} by ${report.requestedBy}` +
            (report.continuedPendingErasure ? ' (continues an incomplete erasure of this member)' : '')
        );
        printLine(
          `  lake: ${countNoun(lake.messageBodiesRedacted, 'message body', 'message bodies')} redacted, ` +
            `${countNoun(lake.aliasesDeleted, 'alias', 'aliases')} and ` +
            `${countNoun(lake.participantsDeleted, 'participant row')} and ` +
            `${countNoun(lake.memberLinksDeleted, 'member link')} deleted`
        );
        printLine(
          `  send: ${countNoun(lake.optInsDeleted, 'opt-in')} and ` +
            `${countNoun(lake.testRecipientsDeleted, 'test recipient')} deleted, ` +
            `${countNoun(lake.sentMessagesRedacted, 'message')} sent to the member redacted ` +
            '(text, recipient, metadata)'
        );
        for (const [column, rows] of Object.entries(lake.pseudonymized))
          printLine(`  lake: ${column}: ${countNoun(rows, 'row')} pseudonymized`);
        if (outboxRowsRewritten !== null) printLine(`  outbox: ${countNoun(outboxRowsRewritten, 'row')} rewritten`);
        if (deadLetterEntriesRedacted !== null)
          printLine(`  dead letters: ${countNoun(deadLetterEntriesRedacted, 'entry', 'entries')} redacted`);
        printLine('not reached:');
        for (const line of report.notReached) printLine(`  - ${line}`);
      } finally {
        await temporal?.close();
        await pool.end();
      }
    });
}

/** Where `export --participant` writes without `--out`: beside the stack's data, never into the working directory. */
const DEFAULT_EXPORT_DIR = join('.data', 'exports');

/**
 * The folder a participant export goes to, made ready: `--out`, or {@link DEFAULT_EXPORT_DIR} created owner-only
 * (0700). Personal data never lands in `/`, `~`, the checkout or a folder above them (architecture.md §10).
 * @throws Error naming the folder and why; DirectoryNotCreatedError.
 */
function participantExportDir(out: string | undefined): string {
  if (out === undefined) {
    const dir = makeDirectory(DEFAULT_EXPORT_DIR);
    chmodSync(dir, 0o700);
    return dir;
  }
  const reason = describeProtectedFolder(out, { workingDir: null, homeDir: homedir(), checkoutDir: packageRoot() });
  if (reason !== null) {
    throw new Error(
      `refusing to write personal data into ${out}: ${reason}; pass --out with a folder of its own, ` +
        `or leave --out out for ${DEFAULT_EXPORT_DIR}`
    );
  }
  return out;
}

/**
 * Registers `wa-lake export --participant` (ADR 0014 decision 7; LGPD Art. 18 I–II and V, Art. 19) and
 * `wa-lake export --parquet DIR` (ADR 0025), one of the two per run.
 */
function registerExportCommand(program: Command): void {
  program
    .command('export')
    .description(
      "write one member's data as schema-versioned JSON and a readable HTML page (access, portability), " +
        'or the message read model and the daily views as Parquet files (--parquet DIR)'
    )
    .option('--participant <id>', 'LID, phone JID, phone number, member id, or an erased-…@erased pseudonym')
    .option(
      '--out <dir>',
      `folder to write the two files into (default: ${DEFAULT_EXPORT_DIR}, owner-only)`,
      outputPath
    )
    .option('--requested-by <name>', 'who runs it (recorded in whatsapp_access_requests)', currentUser())
    .option(
      '--parquet <dir>',
      'write the messages and the daily engagement views as Parquet files into this folder',
      outputPath
    )
    .action(async (options: { participant?: string; parquet?: string; out?: string; requestedBy: string }) => {
      if ((options.participant === undefined) === (options.parquet === undefined))
        throw new Error("choose one: --participant ID (one member) or --parquet DIR (the analysts' files)");
      if (options.parquet !== undefined) {
        // DuckDB's native module loads only for this: forget and --participant start without it.
        const { runParquetExport } = await import('../export/run-parquet-export.js');
        await runParquetExport(options.parquet);
        return;
      }
      const participant = options.participant ?? '';
      const outDir = participantExportDir(options.out);
      const namespace = parseConfig(
        z.object({ TEMPORAL_NAMESPACE: z.string().min(1).default('default') }),
        process.env
      ).TEMPORAL_NAMESPACE;
      const pool = createPool(databaseUrl());
      try {
        const written = await runParticipantExport({
          pool,
          identifier: participant,
          outDir,
          requestedBy: options.requestedBy,
          temporalNamespace: namespace,
        });
        printLine(`export run ${written.runId} by ${options.requestedBy}`);
        printLine(`  JSON: ${written.jsonPath}`);
        printLine(`  HTML: ${written.htmlPath}`);
        for (const [section, count] of Object.entries(written.counts)) printLine(`  ${section}: ${count}`);
        if (!written.isFound)
          process.stderr.write(
            `wa-lake export: the lake holds nothing of ${participant} (never seen, mistyped, or erased); ` +
              'the files say so\n'
          );
      } finally {
        await pool.end();
      }
    });
}

/**
 * An erasure that could not reach the outbox or the dead-letter entries is not done (ADR 0017): the
 * member's data may still sit there. Says on stderr what was and was not erased and sets exit code 1; the report
 * still prints. The member's identifiers stay kept, hashed, until a rerun reaches every store.
 */
function failWhenIncomplete(report: ErasureReport): void {
  if (report.isComplete) return;
  const { outboxRowsRewritten, deadLetterEntriesRedacted } = report.counts;
  const notDone = report.notReached.filter(
    (line) => line.startsWith('dead-letter entries:') || line.startsWith('collector outbox:')
  );
  const done = [
    `lake erased (run ${report.runId})`,
    ...(outboxRowsRewritten === null ? [] : [`outbox erased (${countNoun(outboxRowsRewritten, 'row')} rewritten)`]),
    ...(deadLetterEntriesRedacted === null
      ? []
      : [`dead letters erased (${countNoun(deadLetterEntriesRedacted, 'entry', 'entries')})`]),
  ];
  const missed = [
    ...(outboxRowsRewritten === null ? ['the outbox'] : []),
    ...(deadLetterEntriesRedacted === null ? ['the dead-letter entries'] : []),
  ];
  process.stderr.write(
    `wa-lake forget: INCOMPLETE, ${missed.join(' and ')} ${missed.length > 1 ? 'were' : 'was'} NOT erased.\n` +
      notDone.map((line) => `  not done: ${line}\n`).join('') +
      `  done    : ${done.join('; ')}\n` +
      '  rerun the same forget (with any of the member’s identifiers) once every store is reachable: it finds the\n' +
      '  identifiers this run erased from the lake (kept hashed until the erasure is complete)\n'
  );
  process.exitCode = 1;
}

/**
 * A complete run that found nothing of the participant anywhere (ADR 0014 decision 5): most
 * often a mistyped identifier. Refused without `--force`: says so on stderr, records no run, sets exit code 1.
 * @returns true when refused (the caller prints nothing more).
 */
function failWhenNothingFound(report: ErasureReport, participant: string): boolean {
  if (!report.refused) return false;
  process.stderr.write(
    `wa-lake forget: refused: nothing of ${participant} was found in the lake, the send tables, the outbox or ` +
      'the dead letters, so nothing was erased and no run was recorded; check the identifier (a member erased ' +
      'before is not found either), or pass --force to record the request as done\n'
  );
  process.exitCode = 1;
  return true;
}
