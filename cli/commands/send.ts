import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Command } from 'commander';
import { loadCollectorConfig } from '../../collector/index.js';
import { isLoopbackHost } from '../../common/loopback-host.js';
import { createDataConverter } from '../../common/temporal-data-converter.js';
import { stampControlSignal } from '../../common/control-signal-stamp.js';
import { pauseSendingSignal, resumeSendingSignal, sendGateWorkflowId } from '../../workflows/send-contracts.js';
import { toFileAccessError } from '../file-access-error.js';
import { describeFetchFailure, describeSendApiRefusal } from '../send-api-answer.js';
import { asOptionParser } from './option-parsers.js';
import { connectTemporalClient, printLine } from './shared.js';

/** Thrown when the send API refuses a `wa-lake send` request; the message carries its code. */
export class SendRequestRefusedError extends Error {
  override readonly name = 'SendRequestRefusedError';
  constructor(
    readonly status: number,
    readonly body: string,
    readonly origin: string
  ) {
    super(`the send API at ${origin} answered ${status}: ${describeSendApiRefusal(body)}`);
  }
}

/**
 * Thrown by `wa-lake sending pause|resume` for an account without a `sendGate` workflow: the gate starts with
 * the account's first message, so none exists for a typo or an account that never sent (ADR 0009).
 */
export class NoSendGateError extends Error {
  override readonly name = 'NoSendGateError';
  // No `cause`: the CLI prints the cause chain, and Temporal's "workflow not found for ID" is what confused users.
  constructor(readonly accountId: string) {
    super(`no send gate for account ${accountId} (no message was ever sent from it; check --account)`);
  }
}

/** Thrown when `wa-lake send` has no key: it is never taken on the command line, where `ps` and history show it. */
export class MissingSendApiKeyError extends Error {
  override readonly name = 'MissingSendApiKeyError';
  constructor(detail: string) {
    super(`${detail}: set SEND_API_KEY or pass --api-key-file <path> (a key on the command line would show in ps)`);
  }
}

/**
 * Thrown when `wa-lake send` would send the API key over plain HTTP to a host other than this machine without
 * `--insecure`: anyone on the path could read the key and send as its holder (ADR 0014 decision 5).
 */
export class PlaintextApiKeyError extends Error {
  override readonly name = 'PlaintextApiKeyError';
  constructor(readonly origin: string) {
    super(
      `refusing to send the API key to ${origin} over plain http: it would travel unencrypted to another machine; ` +
        'use an https:// URL, or pass --insecure to send it anyway'
    );
  }
}

/**
 * Allows the key over plain HTTP only to this machine (loopback), or with `--insecure` after a warning on stderr.
 * @throws PlaintextApiKeyError for `http:` to another host without `isInsecureAllowed`.
 */
function checkKeyTransport(baseUrl: URL, isInsecureAllowed: boolean): void {
  if (baseUrl.protocol !== 'http:' || isLoopbackHost(baseUrl.hostname)) return;
  if (!isInsecureAllowed) throw new PlaintextApiKeyError(baseUrl.origin);
  process.stderr.write(
    `wa-lake send: warning: the API key travels unencrypted to ${baseUrl.origin} (plain http, --insecure)\n`
  );
}

/**
 * An `http:` or `https:` base URL (`--url`, `SEND_API_URL`).
 * @throws Error naming what is wrong, instead of undici's bare "Invalid URL".
 */
function parseHttpUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${JSON.stringify(value)} is not a URL; give one like http://127.0.0.1:8080`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${JSON.stringify(value)} is not an http: or https: URL`);
  }
  return url;
}

/**
 * The send API key from `--api-key-file` (first line, trimmed) or else `SEND_API_KEY` (ADR 0014 decision 5).
 * @throws MissingSendApiKeyError when neither gives one.
 */
function readSendApiKey(file: string | undefined): string {
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw toFileAccessError(err, 'read the API key file', file);
    }
    const key = text.split(/\r?\n/, 1)[0]?.trim() ?? '';
    if (key === '') throw new MissingSendApiKeyError(`${file} holds no key`);
    return key;
  }
  const key = process.env['SEND_API_KEY']?.trim() ?? '';
  if (key === '') throw new MissingSendApiKeyError('no send API key');
  return key;
}

/**
 * Registers `wa-lake send --to … --text …` (a quick manual send through `POST /api/v1/messages`) and
 * `wa-lake sending pause|resume [--account]` (signals to the account's `sendGate`). architecture.md §12,
 * ADR 0009.
 */
export function registerSendCommands(program: Command): void {
  program
    .command('send')
    .description('send one message through the send API (needs a key from `wa-lake api-keys create`)')
    .requiredOption('--to <recipient>', 'group JID (…@g.us) or opted-in phone number')
    .requiredOption('--text <text>', 'message text')
    .option('--api-key-file <path>', 'file holding the x-api-key (default: the SEND_API_KEY environment variable)')
    .option('--category <category>', 'otp | transactional | marketing', 'transactional')
    .option('--deliver-by <iso>', 'deadline (ISO-8601); expired if it cannot go before')
    .option('--idempotency-key <key>', 'repeat a request safely (default: a new UUID)')
    .option(
      '--url <url>',
      'send API base URL (default: SEND_API_URL, which wa-lake dev prints, else http://127.0.0.1:8080)',
      asOptionParser(parseHttpUrl)
    )
    .option('--insecure', 'allow a plain http:// URL to another machine (the API key then travels unencrypted)')
    .action(
      async (options: {
        to: string;
        text: string;
        apiKeyFile?: string;
        category: string;
        deliverBy?: string;
        idempotencyKey?: string;
        url?: URL;
        insecure?: boolean;
      }) => {
        const baseUrl = options.url ?? parseHttpUrl(process.env['SEND_API_URL'] ?? 'http://127.0.0.1:8080');
        checkKeyTransport(baseUrl, options.insecure === true);
        const url = new URL('/api/v1/messages', baseUrl);
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-api-key': readSendApiKey(options.apiKeyFile),
            'idempotency-key': options.idempotencyKey ?? randomUUID(),
          },
          body: JSON.stringify({
            to: options.to,
            text: options.text,
            category: options.category,
            ...(options.deliverBy ? { deliver_by: options.deliverBy } : {}),
          }),
        }).catch((err: unknown) => {
          throw new Error(describeFetchFailure(err, url));
        });
        const body = await response.text();
        if (!response.ok) throw new SendRequestRefusedError(response.status, body, baseUrl.origin);
        printLine(body);
        // ADR 0030: a replay answers like the first request; only this header tells the two apart.
        if (response.headers.get('idempotent-replayed') === 'true') {
          process.stderr.write('wa-lake send: this Idempotency-Key was accepted before; nothing new was sent\n');
        }
      }
    );

  const sending = program.command('sending').description('pause or resume outbound sending of an account');
  for (const [name, description] of [
    ['pause', 'stop granting dispatch slots (messages wait; deadlines still expire them)'],
    ['resume', 'grant dispatch slots again'],
  ] as const) {
    sending
      .command(name)
      .description(description)
      .option('--account <id>', 'sending account', 'default')
      .action(async (options: { account: string }) => {
        const config = loadCollectorConfig(process.env);
        // The pause reason is a payload: encrypted like every other one (architecture.md §14).
        const temporal = await connectTemporalClient(
          config.temporal,
          undefined,
          createDataConverter(config.PAYLOAD_ENCRYPTION_KEYS)
        );
        try {
          const gate = temporal.client.workflow.getHandle(sendGateWorkflowId(options.account));
          try {
            // Bound to the gate and stamped, so a copy replayed later changes nothing (ADR 0026 §4, §5).
            const stamp = stampControlSignal(sendGateWorkflowId(options.account));
            if (name === 'pause') await gate.signal(pauseSendingSignal, { reason: 'operator', ...stamp });
            else {
              const at = new Date(stamp.issuedAtMs).toISOString();
              await gate.signal(resumeSendingSignal, { requestedBy: 'operator', at, ...stamp });
            }
          } catch (err) {
            if (err instanceof WorkflowNotFoundError) throw new NoSendGateError(options.account);
            throw err;
          }
          printLine(`sending ${name === 'pause' ? 'paused' : 'resumed'} for account ${options.account}`);
        } finally {
          await temporal.close();
        }
      });
  }
}
