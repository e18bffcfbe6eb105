import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxStore } from '../../../collector/outbox-store.js';
import { TEST_ERASURE_KEY } from '../../helpers/erasure-key.js';
import { useFreshLake } from '../../helpers/lake-databases.js';
import { messageBody, metadataBody, newGroupJid, newMember } from '../../helpers/lake-privacy-fixtures.js';
import { runCli } from '../../helpers/run-cli.js';

/** How often `needle` occurs in the raw bytes of `path` (0 when there is no such file), as `grep -c` would see it. */
function countBytes(path: string, needle: string): number {
  if (!existsSync(path)) return 0;
  const bytes = readFileSync(path);
  let count = 0;
  for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + 1)) count += 1;
  return count;
}

// ADR 0010: an erased member's ids must not survive in the outbox file's free space, free pages or WAL.
describe('wa-lake forget leaves no byte of the member in outbox.sqlite or its WAL', () => {
  const fresh = useFreshLake();
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wa-lake-forget-bytes-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('erases the LID and the phone number from the raw file while the collector holds the outbox open', async () => {
    const group = newGroupJid();
    const member = newMember();
    const other = newMember();
    const now = new Date();
    expect(await fresh.lake.store(randomUUID(), metadataBody(group, [member, other], now.toISOString()))).toBe(
      'stored'
    );
    const outboxPath = join(dir, 'outbox.sqlite');
    const writer = OutboxStore.open({ path: outboxPath });
    writer.enqueueBatch(
      [
        { eventId: randomUUID(), type: 'messages.upsert', chatJid: group, body: messageBody(group, member, 'hi', now) },
        { eventId: randomUUID(), type: 'groups.metadata', chatJid: group, body: metadataBody(group, [member], '') },
        {
          eventId: randomUUID(),
          type: 'messages.upsert',
          chatJid: group,
          body: messageBody(group, other, 'kept', now),
        },
      ],
      Date.now()
    );
    writer.close();
    const lidUser = member.lid.split('@')[0] ?? '';
    expect(countBytes(outboxPath, lidUser) + countBytes(outboxPath, member.phone)).toBeGreaterThan(0);
    // A running collector keeps its connection open: the WAL then outlives forget's connection.
    const collector = OutboxStore.open({ path: outboxPath });
    try {
      const run = await runCli(['forget', '--participant', `+${member.phone}`], {
        env: {
          DATABASE_URL: fresh.url,
          OUTBOX_PATH: outboxPath,
          AUTH_DIR: join(dir, 'auth'),
          TEMPORAL_ADDRESS: '127.0.0.1:1',
          ERASURE_KEY: TEST_ERASURE_KEY,
        },
      });
      // Temporal is unreachable, so the dead-letter entries stay for a rerun; the outbox is done.
      expect(run.stdout, run.stderr).toContain('outbox: 2 rows rewritten');
      expect(run.stderr).not.toContain('write-ahead log');
      for (const file of [outboxPath, `${outboxPath}-wal`]) {
        expect({ file, lid: countBytes(file, lidUser), phone: countBytes(file, member.phone) }).toEqual({
          file,
          lid: 0,
          phone: 0,
        });
      }
      expect(countBytes(outboxPath, 'kept') + countBytes(`${outboxPath}-wal`, 'kept')).toBeGreaterThan(0);
    } finally {
      collector.close();
    }
  }, 120_000);
});
