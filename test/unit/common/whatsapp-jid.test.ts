import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as baileys from '@whiskeysockets/baileys';
import { describe, expect, it } from 'vitest';
import {
  canonicalPersonJid,
  isJidBroadcast,
  isJidGroup,
  isJidNewsletter,
  isJidStatusBroadcast,
  isHostedLidUser,
  isHostedPnUser,
  isLidUser,
  isPnUser,
  isWellFormedGroupJid,
  jidDecode,
  jidEncode,
  jidNormalizedUser,
  jidPatternSource,
  jidUserDigits,
  jidUsers,
  mentionedUsersIn,
  personJidUsersIn,
  phoneDigitsOfJid,
  phoneJidOf,
} from '../../../common/whatsapp-jid.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Every JID-shaped string of the repository's fixtures and examples. */
function fixtureJids(): string[] {
  const found = new Set<string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(json|jsonl|ndjson)$/.test(name))
        for (const match of readFileSync(path, 'utf8').matchAll(/"([^"\s]*@[a-z.]+)"/g)) found.add(match[1] ?? '');
    }
  };
  walk(join(root, 'test/fixtures'));
  walk(join(root, 'examples'));
  return [...found];
}

const EDGE_CASES = [
  '20000000000993:3@lid',
  '5511987654321:12@s.whatsapp.net',
  '5511987654321@c.us',
  '5511987654321_1:2@s.whatsapp.net',
  '120363000000000201@g.us',
  '5511987654321-1600000000@g.us',
  '120363000000000999@newsletter',
  'status@broadcast',
  '1234567890@broadcast',
  '13135550002@bot',
  '100000000000001@hosted.lid',
  '@g.us',
  'no-at-sign',
  '',
  'a@b@lid',
];

describe('common/whatsapp-jid restates Baileys 7 jid-utils', () => {
  const jids = [...fixtureJids(), ...EDGE_CASES];

  it('finds the fixtures it compares', () => {
    expect(jids.length).toBeGreaterThan(EDGE_CASES.length + 10);
  });

  it.each(jids)('answers as Baileys does for %j', (jid) => {
    expect(isJidGroup(jid)).toBe(baileys.isJidGroup(jid) === true);
    expect(isLidUser(jid)).toBe(baileys.isLidUser(jid) === true);
    expect(isPnUser(jid)).toBe(baileys.isPnUser(jid) === true);
    expect(isJidNewsletter(jid)).toBe(baileys.isJidNewsletter(jid) === true);
    expect(isJidBroadcast(jid)).toBe(baileys.isJidBroadcast(jid) === true);
    expect(isJidStatusBroadcast(jid)).toBe(baileys.isJidStatusBroadcast(jid) === true);
    expect(jidNormalizedUser(jid)).toBe(baileys.jidNormalizedUser(jid));
    const decoded = baileys.jidDecode(jid);
    const ours = jidDecode(jid);
    expect(ours && { user: ours.user, server: ours.server, device: ours.device }).toEqual(
      decoded && { user: decoded.user, server: decoded.server, device: decoded.device }
    );
  });

  it('treats a missing JID as no JID', () => {
    expect([isJidGroup(undefined), isLidUser(null), isPnUser(undefined), jidNormalizedUser(undefined)]).toEqual([
      false,
      false,
      false,
      '',
    ]);
  });
});

describe('common/whatsapp-jid canonical forms', () => {
  it('strips the device suffix of a LID and of a phone JID', () => {
    expect(jidNormalizedUser('20000000000993:3@lid')).toBe('20000000000993@lid');
    expect(jidNormalizedUser('5511987654321:12@s.whatsapp.net')).toBe('5511987654321@s.whatsapp.net');
  });

  it('writes the legacy c.us server as s.whatsapp.net', () => {
    expect(jidNormalizedUser('5511987654321@c.us')).toBe('5511987654321@s.whatsapp.net');
    expect(canonicalPersonJid('5511987654321:2@c.us')).toBe('5511987654321@s.whatsapp.net');
  });

  it('encodes the parts it decodes', () => {
    expect(jidEncode('20000000000993', 'lid', 3)).toBe('20000000000993:3@lid');
    expect(phoneJidOf('5511987654321')).toBe('5511987654321@s.whatsapp.net');
  });

  it('knows a person JID from a group, a name and a bare number', () => {
    expect(canonicalPersonJid('20000000000993:3@lid')).toBe('20000000000993@lid');
    expect(canonicalPersonJid('120363000000000201@g.us')).toBeUndefined();
    expect(canonicalPersonJid('alice@lid')).toBeUndefined();
    expect(canonicalPersonJid('5511987654321')).toBeUndefined();
  });
});

describe('common/whatsapp-jid well-formed input', () => {
  it('accepts a whole group JID, in the new and the older creator-time form', () => {
    expect(isWellFormedGroupJid('120363000000000201@g.us')).toBe(true);
    expect(isWellFormedGroupJid('5511987654321-1600000000@g.us')).toBe(true);
  });

  it('refuses what is only on the group server', () => {
    expect(isJidGroup('abc@g.us')).toBe(true);
    expect(isWellFormedGroupJid('abc@g.us')).toBe(false);
    expect(isWellFormedGroupJid('120363000000000201@g.us ')).toBe(false);
  });

  it('reads the digits of a whole phone JID, never of one with a device', () => {
    expect(phoneDigitsOfJid('5511987654321@s.whatsapp.net')).toBe('5511987654321');
    expect(phoneDigitsOfJid('5511987654321:2@s.whatsapp.net')).toBeUndefined();
    expect(phoneDigitsOfJid('100000000000001@lid')).toBeUndefined();
  });
});

describe('common/whatsapp-jid one key per person', () => {
  const phone = '5511888880002';
  const lid = '100000000000777';
  // Every form a person's JID takes in stored events: erasure tombstones hash its digits (ADR 0027).
  const forms = [
    [`${phone}@s.whatsapp.net`, phone],
    [`${phone}:2@s.whatsapp.net`, phone],
    [`${phone}_1:2@s.whatsapp.net`, phone],
    [`${phone}@c.us`, phone],
    [`${phone}@hosted`, phone],
    [`${phone}:99@hosted`, phone],
    [`${lid}@lid`, lid],
    [`${lid}:3@lid`, lid],
    [`${lid}@hosted.lid`, lid],
    [`${lid}:99@hosted.lid`, lid],
  ] as const;

  it.each(forms)('reads the digits of %s', (jid, digits) => {
    expect(jidUserDigits(jid)).toBe(digits);
    expect(jidUsers([jid])).toEqual([digits]);
    expect(personJidUsersIn(JSON.stringify({ participant: jid }))).toEqual([digits]);
    const replaced = JSON.stringify({ participant: jid }).replace(new RegExp(jidPatternSource([digits]), 'g'), 'P');
    expect(replaced).toBe('{"participant":"P"}');
  });

  it('tells the hosted servers as Baileys does', () => {
    expect(isHostedPnUser(`${phone}@hosted`)).toBe(baileys.isHostedPnUser(`${phone}@hosted`));
    expect(isHostedLidUser(`${lid}@hosted.lid`)).toBe(baileys.isHostedLidUser(`${lid}@hosted.lid`));
    expect(isHostedPnUser(`${lid}@hosted.lid`)).toBe(false);
  });

  it('accepts a hosted JID typed by a person as the account it names', () => {
    expect(canonicalPersonJid(`${phone}:99@hosted`)).toBe(`${phone}@s.whatsapp.net`);
    expect(canonicalPersonJid(`${lid}@hosted.lid`)).toBe(`${lid}@lid`);
  });

  it('finds @mentions in text, never the digits of a JID or a longer number', () => {
    expect(mentionedUsersIn(`hi @${phone} and @${lid}, not ${phone}@s.whatsapp.net nor @${phone}9`)).toEqual([
      phone,
      lid,
      `${phone}9`,
    ]);
  });
});
