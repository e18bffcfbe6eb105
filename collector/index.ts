/**
 * The collector's public entry point: what the CLI may use to run, inspect or lock a collector
 * (cli/README.md). Everything else in this folder is internal and may change freely.
 */
export { describeUnusableReplay } from './capture/unusable-replay.js';
export { describeUnreadableCapture } from './capture/capture-path.js';
export { eventIdFromName } from './event-id.js';
export type { ReplaySummary } from './capture/replay-capture.js';
export { loadCollectorConfig, type CollectorConfig } from './config.js';
export { pendingEtaMs, readCollectorStatus, type CollectorStatus } from './heartbeat.js';
export { HistoryProgressMeter, type HistoryImportStatus } from './history-progress.js';
export { acquireInstanceLock, InstanceLockedError, OUTBOX_LOCK_SUFFIX, type InstanceLock } from './instance-lock.js';
export { OutboxStore, type OutboxState } from './outbox-store.js';
import type { CollectorHandle, RunCollectorOptions } from './run-collector.js';

export type { InvalidPairPhoneError, CollectorHandle, CollectorSource, RunCollectorOptions } from './run-collector.js';
export { findMemberUsersInOutbox, forgetParticipantInOutbox, type OutboxErasureResult } from './forget-in-outbox.js';
export type { OpenedSocket, SessionSocket, SocketFactory } from './session/baileys-socket.js';
export type { LinkPreview } from './session/send-socket.js';
export { readCapture } from './capture/capture-reader.js';
export { BackfillStore, type Backfill } from './backfill/backfill-store.js';

/**
 * {@link import('./run-collector.js').runCollector}, imported when called: it loads Baileys, which a CLI command
 * that only reads the outbox or the config must not wait for (ADR 0017).
 */
export async function runCollector(options: RunCollectorOptions): Promise<CollectorHandle> {
  return (await import('./run-collector.js')).runCollector(options);
}

/**
 * The linked account the auth folder remembers (`creds.json`'s `me`), imported when called: it loads Baileys'
 * JID helpers. `forget` refuses these identifiers without `--force` (ADR 0014 decision 5).
 */
export async function readLinkedAccount(authDir: string): Promise<{ phoneJid: string | null; lid: string | null }> {
  return (await import('./session/stored-account.js')).readStoredAccount(authDir);
}
