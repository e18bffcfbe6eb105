import { readFileSync } from 'node:fs';
import { BufferJSON } from '@whiskeysockets/baileys';
import { deriveEventId } from '../../collector/event-id.js';
import { normalizeItem } from '../../collector/normalize/normalize-value.js';

/**
 * The test's own reading of architecture.md §3 (which items of which event are kept, and their group JID),
 * written apart from collector/event-kinds.ts so the end-to-end test does not grade the filter with
 * itself. Keys come from `deriveEventId`, pinned by its golden-value unit tests.
 */
const KEPT: Record<
  string,
  {
    items: (data: Record<string, unknown>) => unknown[];
    group: (item: Record<string, unknown>) => unknown;
    type?: string;
  }
> = {
  'messages.upsert': {
    items: (d) => d['messages'] as unknown[],
    group: (i) => (i['key'] as Record<string, unknown>)['remoteJid'],
  },
  'messages.update': {
    items: (d) => d as unknown as unknown[],
    group: (i) => (i['key'] as Record<string, unknown>)['remoteJid'],
  },
  'messages.reaction': {
    items: (d) => d as unknown as unknown[],
    group: (i) => (i['key'] as Record<string, unknown>)['remoteJid'],
  },
  'group-participants.update': { items: (d) => [d], group: (i) => i['id'] },
  'groups.update': { items: (d) => d as unknown as unknown[], group: (i) => i['id'] },
  'groups.upsert': { items: (d) => d as unknown as unknown[], group: (i) => i['id'] },
  'group.join-request': { items: (d) => [d], group: (i) => i['id'] },
  'group.member-tag.update': { items: (d) => [d], group: (i) => i['groupId'] },
  call: { items: (d) => d as unknown as unknown[], group: (i) => i['groupJid'] },
  'groups.metadata': { items: (d) => [d], group: (i) => i['id'] },
};

function deleteItems(data: Record<string, unknown>): Array<{ item: unknown; group: unknown }> {
  if (Array.isArray(data['keys'])) {
    return (data['keys'] as Array<Record<string, unknown>>).map((key) => ({
      item: { keys: [key] },
      group: key['remoteJid'],
    }));
  }
  return [{ item: data, group: data['jid'] }];
}

/** Distinct event ids that a correct collector keeps from a capture file in our format. */
export function expectedDistinctEventIds(capturePath: string): Set<string> {
  const ids = new Set<string>();
  const add = (type: string, chatJid: string | null, item: unknown): void => {
    ids.add(deriveEventId({ type, chatJid, item: normalizeItem(type, item), selfJid: null }));
  };
  for (const line of readFileSync(capturePath, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const { event, data } = JSON.parse(line, BufferJSON.reviver) as { event: string; data: Record<string, unknown> };
    if (event === 'messaging-history.set') {
      // ADR 0016: group messages of a history push are kept like their live copies; DMs never.
      for (const message of (data['messages'] as Array<Record<string, unknown>> | undefined) ?? []) {
        const group = (message['key'] as Record<string, unknown> | undefined)?.['remoteJid'];
        if (typeof group === 'string' && group.endsWith('@g.us')) add('messages.upsert', group, message);
      }
      for (const mapping of (data['lidPnMappings'] as unknown[] | undefined) ?? [])
        add('lid-mapping.update', null, mapping);
      continue;
    }
    if (event === 'lid-mapping.update') {
      add('lid-mapping.update', null, data);
      continue;
    }
    const pairs =
      event === 'messages.delete'
        ? deleteItems(data)
        : KEPT[event]
          ? KEPT[event]
              .items(data)
              .map((item) => ({ item, group: KEPT[event]!.group(item as Record<string, unknown>) }))
          : [];
    for (const { item, group } of pairs) {
      if (typeof group === 'string' && group.endsWith('@g.us')) add(event, group, item);
    }
  }
  return ids;
}
