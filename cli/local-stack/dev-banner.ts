import { redactUrlCredentials } from '../../common/redact-url-credentials.js';
import { cliEnvironmentLines, type StackEnvironment } from './cli-environment-lines.js';
import { databaseUrlWithoutPassword } from './pgpass-file.js';

/** What the banner of `wa-lake dev` shows of its running stack. */
export interface DevBannerStack extends StackEnvironment {
  uiUrl: string | null;
  dataDir: string;
  /** The `temporal` CLI the stack runs (installed under `.tools/`, seldom on PATH); `temporal` when not given. */
  temporalCli?: string;
}

/**
 * The lines `wa-lake dev` prints once its stack runs (architecture.md §2, ADR 0017), between two rules so they stand
 * apart from the log: every address, the codec server with its token file, the `export` lines another terminal
 * pastes before `report`, `forget`, `status`, `send`…, and a ready `temporal workflow show` that decrypts through
 * the codec server.
 */
export function devBannerLines(
  stack: DevBannerStack,
  heading = 'wa-lake dev is running (Ctrl-C stops everything)'
): string[] {
  const rule = '─'.repeat(100);
  const lines = [
    '',
    rule,
    heading,
    `  Temporal Web UI : ${stack.uiUrl ?? '(headless)'}`,
    `  Temporal        : ${stack.temporalAddress}`,
  ];
  if (stack.codec) {
    const token = stack.codec.tokenFile ? `token in ${stack.codec.tokenFile}` : 'token from CODEC_SERVER_TOKEN';
    const endpoint = `${stack.codec.url}/<token>`;
    lines.push(
      `  Codec server    : ${stack.codec.url} (${token}; every caller needs it)`,
      `  Web UI decoding : in the Web UI's Codec Server setting, enter ${endpoint} (kept by your browser)`
    );
  }
  lines.push(
    `  Ingest API      : ${stack.ingestUrl}`,
    `  Lake (psql)     : ${lakeLine(stack)}`,
    `  Outbox          : ${stack.outboxPath}`,
    `  Status file     : ${stack.collectorStatusPath}`,
    `  Data folder     : ${stack.dataDir}`,
    '  CLI commands in another terminal need (paste before wa-lake report, members, forget, status, send…):',
    ...cliEnvironmentLines(stack).map((line) => `    ${line}`)
  );
  if (stack.codec) {
    lines.push(
      '  Read a workflow with its payloads decrypted (after the lines above):',
      `    ${stack.temporalCli ?? 'temporal'} workflow show --workflow-id <event_id>`
    );
  }
  lines.push(rule, '');
  return lines;
}

/** The lake's connection without its password: `psql` reads it from `PGPASSFILE` (ADR 0028). */
function lakeLine(stack: DevBannerStack): string {
  if (!stack.postgresFiles) return redactUrlCredentials(stack.databaseUrl);
  return `${databaseUrlWithoutPassword(stack.databaseUrl)} (password in ${stack.postgresFiles.pgpassFile}: PGPASSFILE)`;
}
