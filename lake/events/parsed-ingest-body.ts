import type { IngestSource } from '../../common/ingest-body.js';
import type { JsonValue } from '../../common/json-value.js';

/** A validated delivery, ready for the events repository. */
export interface ParsedIngestBody {
  type: string;
  chatJid: string | null;
  /** The whole body as JSON text PostgreSQL can store (the received text unless sanitized). */
  bodyText: string;
  /** The sanitized `payload` value (object or array, never empty). */
  payload: JsonValue;
  isSanitized: boolean;
  capturedAt: Date | null;
  upsertType: string | null;
  occurredAt: Date | null;
  /** The linked account's JID (`account_jid`), to tell its own removal from a group (ADR 0007). */
  accountJid: string | null;
  /** The linked account's LID (`account_lid`), its other JID (ADR 0019). */
  accountLid: string | null;
  /**
   * The id the first collector gave this item (`legacy_event_id`, lower case), sent only when its key
   * rules give another id: a lake row under either id makes this delivery a duplicate.
   */
  legacyEventId: string | null;
  /** Where the collector got the item (`source`, ADR 0016); `live` when not sent (live bodies, older collectors). */
  source: IngestSource;
}
