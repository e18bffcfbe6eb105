import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Client, type ConnectionLike } from '@temporalio/client';
import {
  defaultPayloadConverter,
  defineSearchAttributeKey,
  SearchAttributeType,
  type Payload,
  type ProtoFailure,
} from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  bundleWorkflowCode,
  NativeConnection,
  Worker,
  type WorkerOptions,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { resolveTemporalCliPath } from '../../dev-stack/temporal-binaries.js';
import { envPayloadEncryptionKeys } from '../../common/payload-encryption-keys.js';
import { createDataConverter, resolveFailureConverterPath } from '../../common/temporal-data-converter.js';
import { resolveTestServerPath } from '../../dev-stack/temporal-binaries.js';
import { loadWorkerConfig, type WorkerConfig } from '../../worker/config.js';
import { installRuntimeLoggerOnce } from '../../worker/runtime-logger.js';
import { resolveWorkflowsPath } from '../../worker/workflows-path.js';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../workflows/contracts.js';
import { silentLogger } from './silent-logger.js';

/** A 32-character test secret (the ingest needs ≥ 16). */
export const TEST_SECRET = 'test-secret-0123456789abcdefghij';

/**
 * `PAYLOAD_ENCRYPTION_KEYS` of the test helpers: tests run with the payload codec on, as production should
 * (architecture.md §14). Two keys, so decoding by key id is exercised; `test1` encrypts.
 */
export const TEST_PAYLOAD_ENCRYPTION_KEYS = `test1:${Buffer.alloc(32, 7).toString('base64')},test0:${Buffer.alloc(32, 3).toString('base64')}`;

/** The data converter matching {@link TEST_PAYLOAD_ENCRYPTION_KEYS}, for clients a test builds itself. */
export const testDataConverter = () =>
  createDataConverter(envPayloadEncryptionKeys.parse(TEST_PAYLOAD_ENCRYPTION_KEYS));

/**
 * The value of one payload as a history stores it (encrypted by the test codec), e.g. a workflow input
 * read with `fetchHistory()`: decrypted, then converted from JSON. @throws when it does not decrypt.
 */
export async function decodeStoredPayload(payload: Payload | null | undefined): Promise<unknown> {
  const codecs = testDataConverter()?.payloadCodecs ?? [];
  let payloads: Payload[] = payload ? [payload] : [];
  for (const codec of codecs) payloads = await codec.decode(payloads);
  return payloads[0] ? defaultPayloadConverter.fromPayload(payloads[0]) : undefined;
}

/**
 * The message of a failure as a history or a describe stores it: the failure converter moves message and stack
 * into `encodedAttributes`, which the test codec encrypts (ADR 0022), leaving "Encoded failure" in `message`.
 * @returns the original message; the stored one for a failure written without encoded attributes.
 */
export async function decodeFailureMessage(failure: ProtoFailure | null | undefined): Promise<string | undefined> {
  if (!failure) return undefined;
  if (!failure.encodedAttributes) return failure.message ?? undefined;
  const attributes = (await decodeStoredPayload(failure.encodedAttributes)) as { message?: unknown } | undefined;
  return typeof attributes?.message === 'string' ? attributes.message : undefined;
}

// temporal.api.enums.v1.IndexedValueType wire values (KEYWORD = 2, INT = 3).
const INDEXED_VALUE_TYPE = { Keyword: 2, Int: 3 } as const;

/**
 * The time-skipping test server from the project's binary (one per test file), with the wa-lake search
 * attributes registered through the operator API (the test server rejects upserts of unknown ones).
 */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  installRuntimeLoggerOnce(silentLogger());
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: resolveTestServerPath(process.env) } },
    client: { dataConverter: testDataConverter() },
  });
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(
      SEARCH_ATTRIBUTE_DEFINITIONS.map((definition) => [definition.name, INDEXED_VALUE_TYPE[definition.cliType]])
    ),
  });
  return env;
}

/**
 * `TestWorkflowEnvironment.createLocal` (a real dev server from the project's binary, one per test file)
 * with every wa-lake search attribute and the test payload codec on its client.
 */
export function createLocalEnv(): Promise<TestWorkflowEnvironment> {
  installRuntimeLoggerOnce(silentLogger());
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: resolveTemporalCliPath(process.env) },
      searchAttributes: SEARCH_ATTRIBUTE_DEFINITIONS.map(({ name, cliType }) =>
        cliType === 'Int'
          ? defineSearchAttributeKey(name, SearchAttributeType.INT)
          : defineSearchAttributeKey(name, SearchAttributeType.KEYWORD)
      ),
    },
    client: { dataConverter: testDataConverter() },
  });
}

/**
 * A client a test builds on its own connection (e.g. one to an unreachable address), with the test
 * payload codec like every other test client, so what it writes the test workers can read.
 */
export function createTestClient(connection: ConnectionLike, namespace = 'default'): Client {
  return new Client({ connection, namespace, dataConverter: testDataConverter() });
}

/** A native connection for test workers; the SDK's own logs stay silent (the Runtime is installed first). */
export function connectTestNativeConnection(address: string): Promise<NativeConnection> {
  installRuntimeLoggerOnce(silentLogger());
  return NativeConnection.connect({ address });
}

/** A worker a test builds itself (stub activities or workflows), with the test payload codec. */
export function createTestWorker(options: Omit<WorkerOptions, 'dataConverter'>): Promise<Worker> {
  installRuntimeLoggerOnce(silentLogger());
  return Worker.create({ ...options, dataConverter: testDataConverter() });
}

/**
 * The bundle of `workflows/index.ts` for a test's workers: in the integration tests the run's one bundle, built by
 * their global setup (`workflow-bundle-setup.ts`); elsewhere (benchmarks) one built now by {@link buildWorkflowBundle}.
 */
export async function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  // Only a vitest worker can be given the run's bundle; importing vitest anywhere else would fail.
  const path = process.env['VITEST'] ? (await import('vitest')).inject('workflowBundlePath') : undefined;
  if (path === undefined) return buildWorkflowBundle();
  return JSON.parse(await readFile(path, 'utf8')) as WorkflowBundleWithSourceMap;
}

/** Bundles `workflows/index.ts` with webpack, with the failure converter of the test codec (ADR 0022). */
export function buildWorkflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: resolveWorkflowsPath(),
    failureConverterPath: resolveFailureConverterPath(),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
  });
}

/** A unique task queue per test. */
export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomUUID()}`;
}

/** Worker config through the real `loadWorkerConfig`, with test values (short HTTP timeout). */
export function testWorkerConfig(
  overrides: { WEBHOOK_URL: string; TEMPORAL_TASK_QUEUE: string } & Record<string, string>
): WorkerConfig {
  return loadWorkerConfig({
    WHATSAPP_WEBHOOK_SECRET: TEST_SECRET,
    HTTP_TIMEOUT_MS: '1000',
    WORKER_SHUTDOWN_GRACE_TIME_MS: '5000',
    LOG_LEVEL: 'silent',
    PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS,
    // Test receivers listen on 127.0.0.1 over http; allowed explicitly (ADR 0014).
    SEND_WEBHOOK_ALLOW_HTTP: 'true',
    SEND_WEBHOOK_ALLOW_PRIVATE: 'true',
    ...overrides,
  });
}

/** A JSON body like the collector's, for `DeliverEventInput.body`. */
export function sampleBody(eventId: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'messages.upsert',
    chat_jid: '120363000000000001@g.us',
    payload: { key: { id: eventId } },
    captured_at: '2026-01-01T00:00:00.000Z',
    ...extra,
  });
}
