import { type ApiKeyRecord, hashApiKey, type SendAdminRepository } from '../../lake/index.js';

/** The part of an API key the accept path needs; neither changes during a key's life. */
export type ApiKeyIdentity = Pick<ApiKeyRecord, 'id' | 'accountId' | 'environment'>;

/** How long a verified key is remembered (ms). Revocation does not wait for it: see {@link ApiKeyCache}. */
export const API_KEY_CACHE_TTL_MS = 60_000;
/** Most keys remembered at once; the oldest entry is dropped first. */
export const API_KEY_CACHE_MAX_ENTRIES = 10_000;

/**
 * Remembers `hash(key) → {id, accountId}` of keys found active, so `POST /api/v1/messages` does not
 * look its key up on every request. Keys are 256 random bits, so their plain
 * SHA-256 is the right stored form (no slow KDF: there is nothing to brute-force) and hashing costs
 * about a microsecond; the saving is the database round trip.
 *
 * A cached key can have been revoked since. That never lets a request through: the accept statement
 * (`lake/send/send-intent-statement.ts`) re-checks `revoked_at IS NULL` in the same statement that commits,
 * and the route re-checks with {@link findFresh} before any other 4xx, so a revoke takes effect on the
 * next request. Unknown keys are never cached (a key created a moment ago works at once).
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, { identity: ApiKeyIdentity; expiresAtMs: number }>();

  constructor(
    private readonly admin: Pick<SendAdminRepository, 'findActiveApiKey'>,
    private readonly now: () => number = Date.now
  ) {}

  /** The active key `presentedKey`, from the cache when seen active in the last TTL. @returns null when unknown or revoked. */
  async find(presentedKey: string): Promise<ApiKeyIdentity | null> {
    if (presentedKey === '') return null;
    const hash = hashApiKey(presentedKey);
    const cached = this.entries.get(hash);
    if (cached && cached.expiresAtMs > this.now()) return cached.identity;
    return this.lookUp(hash);
  }

  /** The active key `presentedKey`, always from the database (drops a revoked key from the cache). */
  findFresh(presentedKey: string): Promise<ApiKeyIdentity | null> {
    return presentedKey === '' ? Promise.resolve(null) : this.lookUp(hashApiKey(presentedKey));
  }

  /** Forgets a key (the accept statement found it revoked). */
  forget(presentedKey: string): void {
    this.entries.delete(hashApiKey(presentedKey));
  }

  private async lookUp(hash: string): Promise<ApiKeyIdentity | null> {
    const record = await this.admin.findActiveApiKey(hash);
    this.entries.delete(hash);
    if (!record) return null;
    const identity = { id: record.id, accountId: record.accountId, environment: record.environment };
    if (this.entries.size >= API_KEY_CACHE_MAX_ENTRIES) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(hash, { identity, expiresAtMs: this.now() + API_KEY_CACHE_TTL_MS });
    return identity;
  }
}
