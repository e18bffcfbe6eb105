import type { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { z } from 'zod';
import type { Logger } from '../../common/logger.js';
import { envLogLevel, parseConfig } from '../../common/config-schema.js';
import { createRootLogger, type LogFormat } from '../../common/logger.js';
import type { TemporalConnection as TemporalConnectionSettings } from '../../common/temporal-connection.js';
import { describeRefusedAddress, probeTemporalConnection } from '../../common/temporal-tls-probe.js';
import { toTerminalLine } from '../terminal-text.js';

/**
 * The CLI's root logger; `LOG_LEVEL` (default `info`) picks the level (house style §6), `LOG_FORMAT` (`auto`,
 * `pretty`, `json`; default `auto`: readable on a terminal, JSON otherwise) the output.
 */
export function createCliLogger(defaultLevel = 'info'): Logger {
  const config = parseConfig(z.object({ LOG_LEVEL: envLogLevel.default(defaultLevel as 'info') }), process.env);
  return createRootLogger({ level: config.LOG_LEVEL, format: cliLogFormat() });
}

/** `LOG_FORMAT`, checked: `auto` (the default), `pretty` or `json`. */
function cliLogFormat(): LogFormat {
  return parseConfig(z.object({ LOG_FORMAT: z.enum(['auto', 'pretty', 'json']).default('auto') }), process.env)
    .LOG_FORMAT;
}

/** True with `LOG_FORMAT=json` (the image's setting): stdout and stderr then carry JSON records only (ADR 0018). */
export function isJsonOnlyOutput(): boolean {
  return cliLogFormat() === 'json';
}

/**
 * Writes a command's closing summary (what `migrate` or `replay` did): its lines for a person, or with
 * `LOG_FORMAT=json` (the image sets it) one info record of `logger` instead, its message the lines joined and
 * `fields` as data, so a JSON-lines log shipper reads only records (ADR 0018). `LOG_LEVEL` above `info` drops the
 * record, as it drops the command's other records.
 */
export function printSummary(logger: Logger, lines: readonly string[], fields: Record<string, unknown> = {}): void {
  if (isJsonOnlyOutput()) {
    logger.info(fields, lines.map((line) => line.trim()).join('; '));
    return;
  }
  for (const line of lines) printLine(line);
}

/**
 * Thrown when Temporal does not answer a command that needs it now (`status`, `dlq`); `likelyCause` is what a
 * probe of the address found (a CA, server name or client certificate mistake; ADR 0028), null when it found none.
 */
export class TemporalUnreachableError extends Error {
  override readonly name = 'TemporalUnreachableError';
  constructor(
    readonly address: string,
    options: { cause: unknown },
    readonly likelyCause: string | null = null
  ) {
    super(
      likelyCause === null
        ? `cannot reach Temporal at ${address} (is it running? TEMPORAL_ADDRESS selects it)`
        : `cannot reach Temporal at ${address}: ${likelyCause}`,
      options
    );
  }
}

/**
 * Connects to Temporal now, failing fast: for operator commands that need an answer, not a retry loop
 * (a lazy connection keeps retrying in the background and outlives a short command).
 * `temporal`: the command's config `temporal` (address, namespace, TLS, API key; ADR 0022).
 * `dataConverter`: from `createDataConverter(PAYLOAD_ENCRYPTION_KEYS)` (architecture.md §14), so payloads read and
 * written by the command are decrypted/encrypted like the worker's.
 * @throws TemporalUnreachableError when the frontend does not answer within `connectTimeoutMs`, or at once when the
 *   address refuses the connection (nothing listens there: no retry within the timeout would change that).
 */
export async function connectTemporalClient(
  temporal: TemporalConnectionSettings,
  connectTimeoutMs = 5_000,
  dataConverter?: DataConverter
): Promise<{ client: Client; close(): Promise<void> }> {
  const refused = await describeRefusedAddress(temporal.address, Math.min(1_000, connectTimeoutMs));
  if (refused !== null) throw new TemporalUnreachableError(temporal.address, { cause: new Error(refused) }, refused);
  // Imported here, not at the top: a command that never talks to Temporal does not load its client.
  const { Client: TemporalClient, Connection: TemporalConnection } = await import('@temporalio/client');
  let connection: Connection;
  try {
    connection = await TemporalConnection.connect({ ...temporal.connectionOptions, connectTimeout: connectTimeoutMs });
  } catch (err) {
    throw new TemporalUnreachableError(temporal.address, { cause: err }, await probeTemporalConnection(temporal));
  }
  return {
    client: new TemporalClient({ connection, namespace: temporal.namespace, dataConverter }),
    close: () => connection.close(),
  };
}

/**
 * Writes one line to stdout (CLI output for humans and scripts, not a log record). Control characters are shown
 * as `\uXXXX` escapes (tabs and line breaks kept): many lines carry a remote party's bytes (ADR 0014).
 */
export function printLine(line = ''): void {
  process.stdout.write(`${toTerminalLine(line)}\n`);
}

/**
 * Says why a command did not do what it was asked: `wa-lake: <line>` on stderr, further lines (a list of
 * candidates) indented below it, and exit code 1 (architecture.md §10). Scripts reading stdout never take it
 * for output.
 */
export function failLine(line: string, ...details: readonly string[]): void {
  process.stderr.write(`wa-lake: ${toTerminalLine(line)}\n`);
  for (const detail of details) process.stderr.write(`  ${toTerminalLine(detail)}\n`);
  process.exitCode = 1;
}
