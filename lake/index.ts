import type { Logger } from '../common/logger.js';
/**
 * The lake's one door: everything outside `lake/` (the ingest API's HTTP process, the CLI) reaches PostgreSQL
 * through these exports (lake/README.md). Everything else in this folder is internal and may change freely.
 */
// The database itself: pool, migrations, the errors callers branch on.
export {
  DatabaseBusyError,
  DatabaseUnavailableError,
  InvertedReportRangeError,
  ReportRangeTooLongError,
  UnknownReportGroupError,
} from './errors.js';
export { createPool, inTransaction } from './pool.js';
// Lake in: the raw event log, its projections and event time.
export { countStoredEvents } from './events/count-stored-events.js';
export { EventsRepository } from './events/events-repository.js';
export type { ParsedIngestBody } from './events/parsed-ingest-body.js';
export { rebuildProjections } from './events/rebuild-projections.js';
export { extractOccurredAt, toEpochMs } from './projections/occurred-at.js';
// Send out: intents, their transitions, keys and allow-lists (architecture.md §12).
export { generateApiKey, hashApiKey } from './send/api-key.js';
export { type OutboundMessage, OutboundMessagesRepository } from './send/outbound-messages-repository.js';
export { normalizeRecipient } from './send/recipient.js';
export { type ApiKeyRecord, SendAdminRepository, type SendEnvironment } from './send/send-admin-repository.js';
export { SendIntentBatchWriter } from './send/send-intent-batch-writer.js';
export { type IdempotencyClaim, IdempotencyClaims } from './send/idempotency-claims.js';
export type { QuotaUsage, SendIntentCandidate } from './send/send-intent-statement.js';
// Templates (ADR 0015): versions in PostgreSQL, the pure renderer shared by the CLI and the API.
export { describeTemplateBodyProblem, placeholdersOf, renderTemplate } from './send/render-template.js';
export { SendTemplatesRepository, type TemplateVersion } from './send/send-templates-repository.js';
export { StatusWebhookTargets } from './send/status-webhook-targets.js';
// Read side: the engagement report and member links (architecture.md §13).
export { readFirstResponseSummary, type FirstResponseSummary } from './engagement/first-response-queries.js';
export {
  readCoverageDays,
  readOldestMessageSince,
  type DayCoverage,
  type GroupCoverage,
  type ReportCoverage,
  type StoredMessageKey,
} from './engagement/coverage-queries.js';
export {
  assertGroupInLake,
  readEngagementReport,
  type EngagementReport,
  type EngagementReportOptions,
} from './engagement/engagement-report-queries.js';
export { emptyEngagementReport } from './engagement/engagement-report.js';
export { KeptEngagementReports, type KeptReportRead } from './engagement/kept-engagement-reports.js';
export {
  ANALYST_DATASETS,
  readAnalystDatasets,
  type AnalystDataset,
  type DatasetColumnType,
} from './engagement/analyst-datasets.js';
export {
  listGroups,
  MEMBER_PAGE_LIST_LIMIT,
  readMemberPage,
  searchMembers,
  type MemberPage,
  type MemberPageOptions,
  type MemberSearch,
  type MemberSearchHit,
} from './engagement/member-page-queries.js';
export {
  InvalidMemberLinkError,
  findUnseenParticipants,
  isParticipantSeen,
  linkMembers,
  listMemberLinks,
  MAX_MEMBER_LINK_CHARS,
  memberLinkTextProblem,
  unlinkMember,
  type MemberLink,
  type MemberLinkRequest,
  type WrittenMemberLink,
} from './engagement/member-links-repository.js';
// Chat exports: WhatsApp's own "Export chat" files (ADR 0023).
export {
  importChatExport,
  NoChatMessagesError,
  resolveExportTimeZone,
  UnknownTimeZoneError,
  type ChatExportImport,
} from './chat-export/import-chat-export.js';
export {
  isExportGroupKnown,
  readExportCountedDays,
  readExportDays,
  readExportSenders,
  type ExportDay,
  type ExportSenderSummary,
} from './chat-export/chat-export-queries.js';
export { exportTitleOfFileName, upsertExportGroups } from './chat-export/export-groups.js';
export {
  DateOrderConflictError,
  DateOrderContradictionError,
  type DateOrderDecision,
} from './chat-export/date-order.js';
export { DATE_ORDERS, type DateOrder } from './chat-export/written-timestamp.js';
// Privacy: erasure and retention (architecture.md §14).
export { expandAliases, forgetParticipantInLake, recordErasureRun } from './privacy/forget-participant.js';
export {
  ErasureKeyMissingError,
  erasureHash,
  writeErasureTombstones,
  type ErasedIdentifierKind,
} from './privacy/erasure-tombstones.js';
export type { LakeErasureResult } from './privacy/lake-erasure-result.js';
export { exportSenderNameOf, forgetExportSenderInLake } from './privacy/forget-export-sender.js';
export { findLinkedAccountJids } from './privacy/linked-account-jids.js';
export { foldErasureIntoRollups } from './privacy/fold-erasure-into-rollups.js';
export { tablesChangedByErasure, vacuumErasedTables, type VacuumResult } from './privacy/vacuum-erased-tables.js';
export { countExport, recordAccessRequest } from './privacy/access-requests.js';
export { readParticipantExport, resolveExportJids } from './privacy/participant-export-queries.js';
export type { ParticipantExport } from './privacy/participant-export.js';
export {
  findPendingErasures,
  forgetPendingErasures,
  keepPendingErasure,
  type PendingErasure,
} from './privacy/pending-erasures.js';
export {
  parseRetentionPeriodMs,
  redactOldMessageBodies,
  type RetentionResult,
} from './privacy/redact-old-message-bodies.js';

/**
 * `runMigrations` (./migrate.js), imported when called: node-pg-migrate is not loaded by the commands that only
 * query the lake (ADR 0017).
 */
export async function runMigrations(options: { databaseUrl: string; logger?: Logger }): Promise<string[]> {
  return (await import('./migrate.js')).runMigrations(options);
}
