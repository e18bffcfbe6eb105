import type { RecipientBehaviour } from '../../cli/demo-send/simulated-whatsapp.js';

/** The sending account of the chaos send phase (`SEND_ACCOUNT_ID` of its collector). */
export const CHAOS_SEND_ACCOUNT_ID = 'chaos-send';

/** The linked account as Baileys reports it (device suffix included). */
export const CHAOS_SEND_SELF = { id: '5500000000008:3@s.whatsapp.net', lid: '100000000000008:3@lid' } as const;

/** Every how many recipients one is not on WhatsApp: its messages end `failed` without reaching the wire. */
const NOT_ON_WHATSAPP_EVERY = 40;

/** Phone number (digits, as a client sends it) of recipient `index`. */
export function chaosRecipientPhone(index: number): string {
  return `5511970${String(index).padStart(6, '0')}`;
}

/** The recipient's JID as the API normalizes it. */
export function chaosRecipientJid(index: number): string {
  return `${chaosRecipientPhone(index)}@s.whatsapp.net`;
}

/** Whether recipient `index` is one the simulated WhatsApp does not know. */
export function isChaosRecipientOffWhatsApp(index: number): boolean {
  return index % NOT_ON_WHATSAPP_EVERY === NOT_ON_WHATSAPP_EVERY - 1;
}

/** The simulated WhatsApp's behaviour per recipient JID for `recipients` recipients (unlisted ones ACK). */
export function chaosSendBehaviours(recipients: number): Map<string, RecipientBehaviour> {
  const behaviours = new Map<string, RecipientBehaviour>();
  for (let index = 0; index < recipients; index += 1) {
    if (isChaosRecipientOffWhatsApp(index)) behaviours.set(chaosRecipientJid(index), 'not_on_whatsapp');
  }
  return behaviours;
}
