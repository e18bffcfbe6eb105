/**
 * The ingest API's public entry point: what the CLI may use to serve, migrate, rebuild and count
 * (issue #15; cli/README.md). Everything else in this folder is internal and may change freely.
 */
export { loadIngestConfig, type IngestConfig } from './config.js';
export { countStoredEvents } from './db/count-stored-events.js';
export { runMigrations } from './db/migrate.js';
export { createPool } from './db/pool.js';
export { rebuildProjections } from './db/rebuild-projections.js';
export { startIngestServer, type RunningIngestServer } from './server.js';
export { forgetParticipantInLake, recordErasureRun, type LakeErasureResult } from './db/forget-participant.js';
export {
  parseRetentionPeriodMs,
  redactOldMessageBodies,
  type RetentionResult,
} from './db/redact-old-message-bodies.js';
// Outbound send administration (architecture.md §12, issue #10): `wa-lake api-keys …` and `wa-lake opt-in …`.
export { type ApiKeyRecord, SendAdminRepository } from './db/send-admin-repository.js';
export { generateApiKey } from './send/api-key.js';
export { isGroupJid, normalizeRecipient } from './send/recipient.js';
export { readCoverageDays, type DayCoverage, type GroupCoverage } from './db/coverage-queries.js';
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
