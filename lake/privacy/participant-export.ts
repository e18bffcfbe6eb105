/** Version of the export's JSON shape; a reader checks it before reading (ADR 0014 decision 7). */
export const PARTICIPANT_EXPORT_SCHEMA_VERSION = 1;

/** One message the member wrote: their own text, never the text of a message they replied to. */
export interface ExportedMessage {
  groupJid: string;
  messageId: string;
  sentAt: string;
  kind: string;
  /** The text or caption as stored; null when none, or redacted by retention or erasure. */
  text: string | null;
  isRedacted: boolean;
  replyToMessageId: string | null;
  editedAt: string[];
  deletedAt: string | null;
}

/** Everything the lake ties to one person (LGPD Art. 18 I–II and V), as {@link readParticipantExport} reads it. */
export interface ParticipantExport {
  schema: 'wa-lake/participant-export';
  schemaVersion: typeof PARTICIPANT_EXPORT_SCHEMA_VERSION;
  generatedAt: string;
  /** The identifier as asked, and how it was read. */
  request: { identifier: string; readAs: 'participant' | 'member id' | 'pseudonym' };
  /** False when the lake holds nothing of the identifier (never seen, or erased). */
  isFound: boolean;
  identifiers: { jids: string[]; phoneNumbers: string[]; memberIds: string[] };
  displayNames: Array<{ kind: string; name: string; firstSeenAt: string; lastSeenAt: string; messages: number }>;
  memberLinks: Array<{ participantId: string; memberId: string; name: string | null; linkedAt: string }>;
  memberships: Array<{
    groupJid: string;
    groupSubject: string | null;
    role: string;
    joinedAt: string | null;
    leftAt: string | null;
  }>;
  messages: ExportedMessage[];
  reactionsGiven: Array<{ groupJid: string; targetMessageId: string; reaction: string; reactedAt: string }>;
  /** Messages of imported chat exports attributed to the member. */
  exportedChatMessages: Array<{ groupJid: string; sentAt: string; kind: string | null; text: string | null }>;
  engagement: {
    criteria: string;
    groups: Array<{
      groupJid: string;
      activeDays: number;
      firstActiveDay: string | null;
      lastActiveDay: string | null;
      messages: number;
      replies: number;
      reactionsGiven: number;
      pollVotes: number;
      cohortWeek: string | null;
      level: 'active' | 'lurker' | 'former member';
    }>;
  };
  messagesSentToThem: Array<{
    id: string;
    accountId: string;
    createdAt: string;
    state: string;
    category: string;
    text: string | null;
    metadata: unknown;
  }>;
  optIns: Array<{ accountId: string; phoneJid: string; note: string | null; createdAt: string }>;
  /** Stores this export does not read, and how to reach them. */
  notReached: string[];
}
