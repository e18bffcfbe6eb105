import type { Command } from 'commander';
import { resolveTemporalCliPath } from '../../dev-stack/temporal-binaries.js';
import { startTemporalDevServer } from '../../dev-stack/temporal-dev-server.js';
import { prepareDataDir } from '../local-stack/data-dir.js';
import { devBannerLines } from '../local-stack/dev-banner.js';
import { unmarkDemoDataDir } from '../local-stack/demo-data-dir.js';
import { describeUnreplayableCapture } from '../local-stack/describe-unreplayable-capture.js';
import { DataDirRefusedError } from '../local-stack/errors.js';
import { currentProtectedFolders, describeProtectedFolder } from '../local-stack/protected-folders.js';
import { type CollectorSource, startLocalStack } from '../local-stack/start-local-stack.js';
import { createShutdownSignal, runUntilTerminated } from '../run-until-os-signal.js';
import { outputPath, tcpPort } from './option-parsers.js';
import { createCliLogger, printLine } from './shared.js';

interface DevOptions {
  dataDir: string;
  replay?: string;
  record?: string;
  pairPhone?: string;
  temporalPort: number;
  uiPort: number;
  ingestPort: number;
  postgresPort: number;
  codecPort: number;
}

/** Registers `wa-lake dev` (= `npm start`) and `wa-lake dev:temporal` (architecture.md §2). */
export function registerDevCommands(program: Command): void {
  program
    .command('dev')
    .description('run Temporal dev server, embedded PostgreSQL, ingest API, worker and collector on this machine')
    .option('--data-dir <dir>', 'state folder (Temporal, PostgreSQL, outbox, auth)', outputPath, '.data')
    .option('--replay <file>', 'feed this capture file instead of a live WhatsApp session')
    .option('--record <file>', 'record every Baileys event received (personal data!) as JSON lines', outputPath)
    .option('--pair-phone <number>', 'link with a pairing code for this phone number instead of a QR code')
    .option('--temporal-port <port>', 'Temporal frontend port', tcpPort, 7233)
    .option('--ui-port <port>', 'Temporal Web UI port', tcpPort, 8233)
    .option('--ingest-port <port>', 'ingest API port', tcpPort, 8080)
    .option('--postgres-port <port>', 'embedded PostgreSQL port (unused when DATABASE_URL is set)', tcpPort, 54329)
    .option(
      '--codec-port <port>',
      'codec server port (the Web UI and temporal CLI decrypt payloads through it)',
      tcpPort,
      8234
    )
    .action(async (options: DevOptions) => {
      refuseProtectedDataDir(options.dataDir);
      const clash = describePortClash(options, process.env['DATABASE_URL'] === undefined);
      if (clash !== null) {
        process.stderr.write(`wa-lake dev: ${clash}; nothing was started\n`);
        process.exitCode = 1;
        return;
      }
      const unreplayable = options.replay === undefined ? null : await describeUnreplayableCapture(options.replay);
      if (unreplayable !== null) {
        process.stderr.write(`wa-lake dev: ${unreplayable}; nothing was started\n`);
        process.exitCode = 1;
        return;
      }
      const logger = createCliLogger();
      const source: CollectorSource = options.replay
        ? { kind: 'replay', path: options.replay }
        : { kind: 'live', pairPhone: options.pairPhone };
      const shutdown = createShutdownSignal(logger);
      const stack = await startLocalStack({
        abortSignal: shutdown.signal,
        dataDir: options.dataDir,
        env: process.env,
        logger,
        source,
        recordPath: options.record,
        temporalPort: options.temporalPort,
        uiPort: options.uiPort,
        ingestPort: options.ingestPort,
        postgresPort: options.postgresPort,
        codecPort: options.codecPort,
      });
      // A demo's folder taken as dev's data folder is dev's from now on: no later demo may wipe it.
      if (unmarkDemoDataDir(prepareDataDir(options.dataDir).root)) {
        logger.warn(
          { dataDir: options.dataDir },
          'data folder was made by a demo; it is now kept (demo marker removed)'
        );
      }
      // A replay that fails (unreadable file, outbox error) is reported; the rest of the stack keeps running.
      stack.collector?.replayDone?.then(
        (summary) =>
          logger.info({ lines: summary.lines, kept: summary.kept, inserted: summary.inserted }, 'replay finished'),
        (err: unknown) => logger.error({ err }, 'replay failed')
      );
      // The banner stands apart from the log lines around it.
      const dataDir = prepareDataDir(options.dataDir).root;
      const temporalCli = resolveTemporalCliPath(process.env);
      for (const line of devBannerLines({ ...stack, dataDir, temporalCli })) printLine(line);
      await runUntilTerminated(() => stack.stop(), logger, shutdown);
    });

  program
    .command('dev:temporal')
    .description('run only the Temporal dev server (Web UI, wa-lake search attributes registered)')
    .option('--data-dir <dir>', 'state folder', outputPath, '.data')
    .option('--temporal-port <port>', 'Temporal frontend port', tcpPort, 7233)
    .option('--ui-port <port>', 'Temporal Web UI port', tcpPort, 8233)
    .action(async (options: { dataDir: string; temporalPort: number; uiPort: number }) => {
      refuseProtectedDataDir(options.dataDir);
      const logger = createCliLogger();
      const shutdown = createShutdownSignal(logger);
      const server = await startTemporalDevServer({
        cliPath: resolveTemporalCliPath(process.env),
        dbFile: prepareDataDir(options.dataDir).temporalDbFile,
        port: options.temporalPort,
        uiPort: options.uiPort,
      });
      printLine(`Temporal dev server on ${server.address}, Web UI ${server.uiUrl ?? '(headless)'} (Ctrl-C stops it)`);
      await runUntilTerminated(() => server.stop(), logger, shutdown);
    });
}

/**
 * Stops `dev` before it writes anything (the stack's lock file included) into `/`, `~`, `.`, the checkout or a
 * folder above one of them: the demo's refusals (ADR 0017), since dev fills its data folder with databases.
 * @throws DataDirRefusedError
 */
function refuseProtectedDataDir(dataDir: string): void {
  const reason = describeProtectedFolder(dataDir, currentProtectedFolders());
  if (reason !== null) throw new DataDirRefusedError(dataDir, reason);
}

/**
 * Two parts of the stack given one port (equal `--temporal-port`/`--ui-port` passed the
 * preflight and failed 27 s later in Temporal's own FATAL JSON). Returns the sentence, or null.
 */
export function describePortClash(
  options: Pick<DevOptions, 'temporalPort' | 'uiPort' | 'ingestPort' | 'postgresPort' | 'codecPort'>,
  hasEmbeddedPostgres: boolean
): string | null {
  const ports: Array<[string, number]> = [
    ['--temporal-port', options.temporalPort],
    ['--ui-port', options.uiPort],
    ['--ingest-port', options.ingestPort],
    ['--codec-port', options.codecPort],
    ...(hasEmbeddedPostgres ? [['--postgres-port', options.postgresPort] as [string, number]] : []),
  ];
  for (const [index, [name, port]] of ports.entries()) {
    const other = ports.slice(index + 1).find(([, candidate]) => candidate === port);
    if (other) return `${name} and ${other[0]} are both ${port}; each part of the stack needs its own port`;
  }
  return null;
}
