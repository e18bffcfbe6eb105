import type { MigrationBuilder } from 'node-pg-migrate';

/**
 * Erasure tombstones (ADR 0027): `wa-lake forget` writes one row per identifier it erased (JID digits, a chat-export
 * sender's name), in the transaction that erases the member. The row holds a keyed hash (HMAC-SHA256 under
 * `ERASURE_KEY`, which is never stored in the database) and the run's pseudonym, so the ingest path stores any later
 * event from or about the member pseudonymized exactly as `forget` left the lake.
 *
 * `whatsapp_erasure_fence(checked)` is how a raw-row INSERT proves its tombstone check is current: it takes a share
 * lock on the identity generation (which `forget` and `rebuild` update first in their transaction) and fails with
 * SQLSTATE WL001 when the generation differs from the one the caller's tombstones were read at, so no event checked
 * before a `forget` commits can be stored after it.
 *
 * Pending erasures (ADR 0017) move to the same keyed hash: `salt` becomes optional (NULL = keyed), `keyed` tells
 * the rows written from now on from the salted SHA-256 rows of earlier versions, which `forget` rewrites keyed the
 * next time it meets them.
 */
export function up(pgm: MigrationBuilder): void {
  pgm.sql(`
    CREATE TABLE whatsapp_erasure_tombstones (
      identifier_hash  varchar(64) PRIMARY KEY,
      pseudonym        text NOT NULL,
      created_at       timestamptz NOT NULL DEFAULT now()
    );

    CREATE FUNCTION whatsapp_erasure_fence(checked bigint) RETURNS boolean
      LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        current_generation bigint;
      BEGIN
        IF checked IS NULL THEN
          RETURN true;
        END IF;
        SELECT generation INTO current_generation FROM whatsapp_identity_generation FOR SHARE;
        IF current_generation IS DISTINCT FROM checked THEN
          RAISE EXCEPTION 'erasure tombstones changed since they were read (generation % now %)',
            checked, current_generation USING ERRCODE = 'WL001';
        END IF;
        RETURN true;
      END;
    $$;

    ALTER TABLE whatsapp_pending_erasures ALTER COLUMN salt DROP NOT NULL;
    ALTER TABLE whatsapp_pending_erasures ADD COLUMN keyed boolean NOT NULL DEFAULT false;
  `);
}

export function down(pgm: MigrationBuilder): void {
  pgm.sql(`
    ALTER TABLE whatsapp_pending_erasures DROP COLUMN IF EXISTS keyed;
    DROP FUNCTION IF EXISTS whatsapp_erasure_fence(bigint);
    DROP TABLE IF EXISTS whatsapp_erasure_tombstones;
  `);
}
