/**
 * Delivery bodies of group message events as the collector sends them (Baileys 7 shapes, see
 * /work/shared/samples and WAProto), for the message read-model tests.
 * Times are epoch seconds.
 */
export type Body = Record<string, unknown>;

interface Key {
  group: string;
  id: string;
  sender: string;
  senderAlt?: string;
}

const keyOf = ({ group, id, sender, senderAlt }: Key): Record<string, unknown> => ({
  remoteJid: group,
  fromMe: false,
  id,
  participant: sender,
  ...(senderAlt ? { participantAlt: senderAlt } : {}),
});

const upsert = (key: Key, t: number, extra: Record<string, unknown>): Body => ({
  type: 'messages.upsert',
  chat_jid: key.group,
  upsert_type: 'notify',
  payload: { key: keyOf(key), messageTimestamp: t, ...extra },
});

/** A text message; `replyTo` and `mentions` go into `extendedTextMessage.contextInfo`. */
export function textMessage(key: Key, t: number, options: { replyTo?: string; mentions?: string[] } = {}): Body {
  const message =
    options.replyTo || options.mentions
      ? {
          extendedTextMessage: {
            text: 'hi',
            contextInfo: {
              ...(options.replyTo ? { stanzaId: options.replyTo, participant: key.sender } : {}),
              ...(options.mentions ? { mentionedJid: options.mentions } : {}),
            },
          },
        }
      : { conversation: 'hello group' };
  return upsert(key, t, { message });
}

/** Any content (`{imageMessage: {...}}`, `{viewOnceMessageV2: {message: ...}}`, …). */
export function contentMessage(key: Key, t: number, message: Record<string, unknown>): Body {
  return upsert(key, t, { message });
}

/** The CIPHERTEXT placeholder Baileys emits before it can decrypt a message (same `key.id`). */
export function undecryptable(key: Key, t: number): Body {
  return upsert(key, t, { messageStubType: 2, messageStubParameters: ['No session'] });
}

/** A group-change stub (27 = participant added). */
export function participantAddedStub(key: Key, t: number, added: string): Body {
  return upsert(key, t, { messageStubType: 27, messageStubParameters: [JSON.stringify({ id: added })] });
}

/** The edit protocol message (its own id `key.id`) editing `targetId`. */
export function editMessage(key: Key, t: number, targetId: string): Body {
  return upsert(key, t, {
    message: {
      protocolMessage: {
        key: { remoteJid: key.group, fromMe: false, id: targetId, participant: key.sender },
        type: 14,
        editedMessage: { conversation: 'edited' },
        timestampMs: t * 1000 + 250,
      },
    },
  });
}

/** The `messages.update` Baileys emits for the same edit (key.id = the target). */
export function editUpdate(key: Key, t: number, targetId: string): Body {
  return {
    type: 'messages.update',
    chat_jid: key.group,
    payload: {
      key: { ...keyOf(key), id: targetId },
      update: { message: { editedMessage: { message: { conversation: 'edited' } } }, messageTimestamp: t },
    },
  };
}

/** An edit Baileys could not decrypt: `secretEncryptedMessage` naming its target. */
export function encryptedEdit(key: Key, t: number, targetId: string): Body {
  return upsert(key, t, {
    message: {
      secretEncryptedMessage: {
        targetMessageKey: { remoteJid: key.group, fromMe: false, id: targetId },
        encPayload: { type: 'Buffer', data: 'AAAA' },
        secretEncType: 2,
      },
    },
  });
}

/** The revoke protocol message (its own id `key.id`) deleting `targetId`. */
export function revokeMessage(key: Key, t: number, targetId: string): Body {
  return upsert(key, t, {
    message: { protocolMessage: { key: { remoteJid: key.group, fromMe: false, id: targetId }, type: 0 } },
  });
}

/** A revoke Baileys' buffer merged into its target: the target's item, content null, stub REVOKE. */
export function mergedRevoke(key: Key, t: number): Body {
  return upsert(key, t, { message: null, messageStubType: 1 });
}

/** A `messages.reaction` item: `reactor` reacts `text` ('' = removed) on `target` at `ms`. */
export function reactionEvent(target: Key, reactor: string, text: string, ms: number): Body {
  return {
    type: 'messages.reaction',
    chat_jid: target.group,
    payload: {
      key: keyOf(target),
      reaction: {
        key: { remoteJid: target.group, fromMe: false, id: `R${reactor}${ms}`, participant: reactor },
        text,
        senderTimestampMs: ms,
      },
    },
  };
}

/** The reaction message itself, as `messages.upsert` also carries it. */
export function reactionMessage(target: Key, reactor: string, text: string, ms: number): Body {
  return upsert({ group: target.group, id: `R${reactor}${ms}`, sender: reactor }, Math.floor(ms / 1000), {
    message: { reactionMessage: { key: keyOf(target), text, senderTimestampMs: ms } },
  });
}

/** A poll vote (encrypted `pollUpdateMessage`), never a message of its own. */
export function pollVote(key: Key, t: number, pollId: string): Body {
  return upsert(key, t, {
    message: {
      pollUpdateMessage: {
        pollCreationMessageKey: { remoteJid: key.group, fromMe: false, id: pollId },
        vote: { encPayload: 'AAAA', encIv: 'AAAA' },
      },
    },
  });
}

/** `body` as sent by a sender whose push name is `name`. */
export function withPushName(name: string, body: Body): Body {
  return { ...body, payload: { ...(body['payload'] as Record<string, unknown>), pushName: name } };
}
