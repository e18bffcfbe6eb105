import type { Logger } from '../common/logger.js';
import type { IngestConfig } from './config.js';
import type { RunningIngestServer } from './server.js';

/**
 * The ingest API's public entry point: what the CLI may use to serve, migrate, rebuild and count
 * (issue #15; cli/README.md). Everything else in this folder is internal and may change freely.
 */
export { loadIngestConfig, type IngestConfig } from './config.js';
export { countStoredEvents } from './db/count-stored-events.js';
export { createPool } from './db/pool.js';
export { rebuildProjections } from './db/rebuild-projections.js';
export type { RunningIngestServer } from './server.js';
export { forgetParticipantInLake, recordErasureRun, type LakeErasureResult } from './db/forget-participant.js';
export {
  findPendingErasures,
  forgetPendingErasures,
  keepPendingErasure,
  type PendingErasure,
} from './db/pending-erasures.js';
export {
  parseRetentionPeriodMs,
  redactOldMessageBodies,
  type RetentionResult,
} from './db/redact-old-message-bodies.js';
// Outbound send administration (architecture.md §12, issue #10): `wa-lake api-keys …` and `wa-lake opt-in …`.
export { type ApiKeyRecord, SendAdminRepository } from './db/send-admin-repository.js';
export { generateApiKey } from './send/api-key.js';
export { isGroupJid, normalizeRecipient } from './send/recipient.js';
export {
  readEngagementReport,
  type EngagementReport,
  type EngagementReportOptions,
} from './db/engagement-report-queries.js';
export {
  InvalidMemberLinkError,
  isParticipantSeen,
  linkMembers,
  listMemberLinks,
  unlinkMember,
  type MemberLink,
  type MemberLinkRequest,
  type WrittenMemberLink,
} from './db/member-links-repository.js';

/**
 * `runMigrations` (./db/migrate.js), imported when called: node-pg-migrate is not loaded by the commands that only
 * query the lake (issue #26 item 3).
 */
export async function runMigrations(options: { databaseUrl: string; logger?: Logger }): Promise<string[]> {
  return (await import('./db/migrate.js')).runMigrations(options);
}

/** `startIngestServer` (./server.js), imported when called: Fastify and the routes load only for a server. */
export async function startIngestServer(options: {
  config: IngestConfig;
  logger: Logger;
}): Promise<RunningIngestServer> {
  return (await import('./server.js')).startIngestServer(options);
}
