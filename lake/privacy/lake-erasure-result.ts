import type { SkippedRow } from '../events/unreadable-rows.js';
import type { SendErasureResult } from './forget-send-side.js';

/** What `forgetParticipantInLake` changed; counts only, never the erased values. */
export interface LakeErasureResult {
  /** Every JID found for the member (input plus LID↔phone aliases); for the other stores, not for storage. */
  jids: string[];
  /** `event_id`s of raw rows that named the member; to match dead-letter entries, not for storage. */
  eventIds: string[];
  /** Raw rows PostgreSQL could not render: not searched, named so an operator can repair them (ADR 0014). */
  skipped: SkippedRow[];
  /** Ids of the messages sent to the member (ADR 0014 decision 5): their Temporal histories are not reached. */
  sentMessages: Pick<SendErasureResult, 'sentMessageIds' | 'unfinishedMessageIds'>;
  counts: {
    messageBodiesRedacted: number;
    aliasesDeleted: number;
    participantsDeleted: number;
    /** Community-member links of the member (`whatsapp_member_links`), deleted: the link itself is personal data. */
    memberLinksDeleted: number;
    /** `table.column` → rows whose values had the member's JIDs replaced by the pseudonym. */
    pseudonymized: Record<string, number>;
  } & SendErasureResult['counts'];
}
