/**
 * The JSON document the collector stores in the outbox `body` column and POSTs verbatim to the ingest
 * API (architecture.md §5, §8). Unknown extra top-level fields are allowed by the API; these are the ones the
 * collector writes. `payload` is the normalized Baileys item (architecture.md §4).
 */
export interface IngestBody {
  /** Baileys event name, e.g. `messages.upsert`, or the synthetic `groups.metadata`. */
  type: string;
  /** Group JID (`…@g.us`), or null for identity data such as `lid-mapping.update`. */
  chat_jid: string | null;
  /** One normalized item (never a whole batch). Object or array, never empty. */
  payload: Record<string, unknown> | unknown[];
  /** ISO-8601 time at which the collector received the Baileys event. */
  captured_at: string;
  /** `notify` / `append` for `messages.upsert`, otherwise absent. */
  upsert_type?: string;
  /**
   * The linked account's JID, on items that can state its own membership of a group (participant
   * stubs, `group-participants.update`), so the lake tells its removal (ADR 0007).
   */
  account_jid?: string;
  /** The linked account's LID, beside `account_jid` whenever that is sent and the session knows it (ADR 0019). */
  account_lid?: string;
  /**
   * The first collector's id of the same item when its key rules give another one; sent when
   * replaying its trail, so the lake recognises the rows that collector stored.
   */
  legacy_event_id?: string;
  /**
   * Where the collector got the item: `live`, `history` (a push WhatsApp sent), `on_demand` (an answer to
   * `fetchMessageHistory`) or `replay` (a capture or trail). Never part of the `event_id`; the lake keeps
   * the first stored copy's (ADR 0016). Absent means `live`, as on every body of older collectors.
   */
  source?: IngestSource;
}

/** Values of {@link IngestBody.source}. */
export const INGEST_SOURCES = ['live', 'history', 'on_demand', 'replay'] as const;
/** One of {@link INGEST_SOURCES}. */
export type IngestSource = (typeof INGEST_SOURCES)[number];

/** Header names of the delivery contract (architecture.md §7). */
export const EVENT_ID_HEADER = 'x-event-id';
export const SIGNATURE_HEADER = 'x-signature';
/** Path of the ingest endpoint (architecture.md §8). */
export const INGEST_PATH = '/api/webhooks/whatsapp';
