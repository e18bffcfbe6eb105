import type { GroupMetadata } from '@whiskeysockets/baileys';
import type { SendCategory, SendState } from '../../workflows/send-contracts.js';
import { type RecipientBehaviour, SimulatedWhatsApp } from './simulated-whatsapp.js';

/** The sending account of the demo (`SEND_ACCOUNT_ID`). */
export const DEMO_ACCOUNT_ID = 'demo';

/** The linked account as Baileys reports it (device suffix included) and its participant ids in groups. */
const SELF = { id: '5500000000009:12@s.whatsapp.net', lid: '100000000000009:12@lid' };
export const DEMO_SELF_PARTICIPANT_IDS = ['100000000000009@lid', '5500000000009@s.whatsapp.net'];

/** Timings of the demo (ms): the send timeout is shortened so a slow send is retried within seconds. */
export const DEMO_TIMINGS = {
  sendTimeoutMs: 2_000,
  /** Longer than the send timeout: the first attempt times out while the message is on the wire. */
  slowSendMs: 6_000,
  ackStepMs: 150,
  /** How long the disconnect lasts: longer than the expiring message's deadline. */
  outageMs: 8_000,
  /** `deliver_by` of the message sent into the outage, from the moment it is requested. */
  expiringDeadlineMs: 3_000,
} as const;

const GROUP_A = '120363000000000101@g.us';
const GROUP_B = '120363000000000102@g.us';
/** Phone recipients (digits; the API normalizes them to `…@s.whatsapp.net`). */
const PHONE = {
  ok1: '5511900000001',
  ok2: '5511900000002',
  ok3: '5511900000003',
  lostAck: '5511900000010',
  slow: '5511900000020',
  notOnWhatsApp: '5511900000030',
  expiring: '5511900000040',
} as const;
const jidOf = (phone: string): string => `${phone}@s.whatsapp.net`;

/** All phones that must be opted in for the API to accept them. */
export const DEMO_OPT_IN_PHONES: readonly string[] = Object.values(PHONE);
/** Groups the account is in (the collector snapshots them into the lake on open). */
export const DEMO_GROUPS: readonly string[] = [GROUP_A, GROUP_B];

/** One request of the demo and the state it must end in. */
export interface PlannedMessage {
  to: string;
  category: SendCategory;
  /** The fault it demonstrates, for the printed summary. */
  label: string;
  /** State before the late ACKs of phase 3. */
  expected: SendState;
  /** Phase 3 sends a late server ACK for it (a lost ACK that turns up): then it must end `sent`. */
  lateAck?: boolean;
  /** Milliseconds from request to `deliver_by`, or none. */
  deliverInMs?: number;
  /** Sent as `{template, variables}` instead of text (ADR 0015). */
  template?: { name: string; variables: Record<string, string> };
  /** Its text links to the demo's local page: it goes out with a link preview (ADR 0015). */
  hasLink?: boolean;
}

/** The demo's template (ADR 0015): added and approved before the requests. */
export const DEMO_TEMPLATE = { name: 'demo-reminder', body: 'Reminder: {{event}} starts at {{time}}' } as const;

/** Phase 1, while connected: normal sends, lost ACKs (two turn up later), one slow send, one unknown number. */
export const PHASE_1: readonly PlannedMessage[] = [
  { to: GROUP_A, category: 'transactional', label: 'group, acked', expected: 'read' },
  { to: GROUP_B, category: 'marketing', label: 'group, acked', expected: 'read' },
  { to: GROUP_A, category: 'marketing', label: 'group, acked', expected: 'read' },
  { to: PHONE.ok1, category: 'otp', label: 'direct, acked', expected: 'read' },
  { to: PHONE.ok2, category: 'transactional', label: 'direct, acked', expected: 'read' },
  { to: PHONE.ok3, category: 'marketing', label: 'direct, acked', expected: 'read' },
  { to: PHONE.lostAck, category: 'transactional', label: 'lost ACK, turns up', expected: 'dispatched', lateAck: true },
  { to: PHONE.lostAck, category: 'marketing', label: 'lost ACK, turns up', expected: 'dispatched', lateAck: true },
  { to: PHONE.lostAck, category: 'marketing', label: 'lost ACK, never', expected: 'dispatched' },
  { to: PHONE.slow, category: 'otp', label: 'slow send, retried', expected: 'read' },
  { to: PHONE.notOnWhatsApp, category: 'transactional', label: 'not on WhatsApp', expected: 'failed' },
  {
    to: GROUP_B,
    category: 'transactional',
    label: 'template, rendered at accept',
    expected: 'read',
    template: { name: DEMO_TEMPLATE.name, variables: { event: 'the meetup', time: '19:00' } },
  },
  { to: GROUP_A, category: 'transactional', label: 'link, previewed', expected: 'read', hasLink: true },
];

/** Phase 2, during the disconnect: one message whose deadline passes first, two that wait for the reconnect. */
export const PHASE_2: readonly PlannedMessage[] = [
  {
    to: PHONE.expiring,
    category: 'otp',
    label: 'deadline passes offline',
    expected: 'expired',
    deliverInMs: DEMO_TIMINGS.expiringDeadlineMs,
  },
  { to: PHONE.ok1, category: 'transactional', label: 'sent after reconnect', expected: 'read' },
  { to: GROUP_B, category: 'otp', label: 'sent after reconnect', expected: 'read' },
];

function demoGroup(id: string, subject: string): GroupMetadata {
  return {
    id,
    addressingMode: 'lid' as GroupMetadata['addressingMode'],
    owner: '100000000000009@lid',
    subject,
    creation: 1764000000,
    participants: [
      { id: '100000000000009@lid', phoneNumber: '5500000000009@s.whatsapp.net', admin: 'superadmin' },
      { id: '100000000000002@lid', phoneNumber: '5500000000002@s.whatsapp.net', admin: null },
    ],
  };
}

/** The simulated WhatsApp of the demo, with its faults bound to recipients (so no request races its fault). */
export function createDemoWhatsApp(): SimulatedWhatsApp {
  const behaviours = new Map<string, RecipientBehaviour>([
    [jidOf(PHONE.lostAck), 'lost_ack'],
    [jidOf(PHONE.slow), 'slow_first_send'],
    [jidOf(PHONE.notOnWhatsApp), 'not_on_whatsapp'],
  ]);
  return new SimulatedWhatsApp({
    self: SELF,
    groups: { [GROUP_A]: demoGroup(GROUP_A, 'Demo announcements'), [GROUP_B]: demoGroup(GROUP_B, 'Demo reminders') },
    behaviours,
    slowSendMs: DEMO_TIMINGS.slowSendMs,
    ackStepMs: DEMO_TIMINGS.ackStepMs,
  });
}
