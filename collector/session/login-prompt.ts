import qrcodeTerminal from 'qrcode-terminal';
import type { Logger } from '../../common/logger.js';
import { phoneDigitsOfNumber } from '../../common/whatsapp-jid.js';
import type { SessionSocket } from './baileys-socket.js';

/** Where the session writes what a human must see to link the device (QR or pairing code). */
export type TerminalWriter = (text: string) => void;

/** Writes to the process's stdout (the default {@link TerminalWriter}). */
export const writeToStdout: TerminalWriter = (text) => {
  process.stdout.write(text);
};

/**
 * Renders a WhatsApp linking QR in the terminal (Baileys rc14 no longer prints it itself).
 * Source: architecture.md §10.
 */
export function renderQr(qr: string, write: TerminalWriter): void {
  qrcodeTerminal.generate(qr, { small: true }, (art) => {
    write(`\nScan this QR code with WhatsApp (Settings → Linked devices → Link a device):\n${art}\n`);
  });
}

/** Shows a pairing code (8 characters, shown as two groups of four). */
export function renderPairingCode(code: string, write: TerminalWriter): void {
  const shown = code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code;
  write(
    `\nWhatsApp pairing code: ${shown}\nOn the phone: Settings → Linked devices → Link a device → Link with phone number instead.\n`
  );
}

/**
 * Normalizes `--pair-phone` to the digits Baileys expects (country code first, no `+`, spaces or dashes).
 * @returns the digits, or null when the value is not a plausible international number (`phoneDigitsOfNumber`).
 */
export function normalizePairPhone(value: string): string | null {
  return phoneDigitsOfNumber(value) ?? null;
}

/**
 * Shows how to link the device each time Baileys emits a `qr` (architecture.md §10): the QR itself, or —
 * with `pairPhone` — a pairing code requested once per socket (Baileys keeps emitting new QR refs).
 */
export class LinkPrompter {
  private readonly requested = new WeakSet<SessionSocket>();

  constructor(private readonly options: { pairPhone: string | undefined; write: TerminalWriter; logger: Logger }) {}

  /** Handles one `connection.update.qr` of `socket`. Never throws; a failed pairing request is logged. */
  show(socket: SessionSocket, qr: string): void {
    const { pairPhone, write, logger } = this.options;
    if (pairPhone === undefined) {
      renderQr(qr, write);
      return;
    }
    if (this.requested.has(socket)) return;
    this.requested.add(socket);
    socket.requestPairingCode(pairPhone).then(
      (code) => renderPairingCode(code, write),
      (err: unknown) => logger.error({ err }, 'cannot request a pairing code')
    );
  }
}
