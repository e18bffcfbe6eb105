import { makeEventBuffer, type GroupMetadata } from '@whiskeysockets/baileys';
import pino from 'pino';
import { vi } from 'vitest';
import type { OpenedSocket, SessionSocket } from '../../collector/session/baileys-socket.js';

/** A Baileys socket double: its `ev` is Baileys' own `makeEventBuffer`; no network. */
export interface SocketDouble extends SessionSocket {
  ev: ReturnType<typeof makeEventBuffer>;
  requestPairingCode: ReturnType<typeof vi.fn<(phone: string) => Promise<string>>>;
  /** Emits `connection.update: close` with a Boom-shaped error carrying `statusCode`. */
  close(statusCode: number, data?: Record<string, unknown>): void;
}

/** A Boom as Baileys builds it (`output.statusCode`, optional `data`), without depending on @hapi/boom. */
export function boomLike(statusCode: number, message: string, data?: Record<string, unknown>): Error {
  return Object.assign(new Error(message), { isBoom: true, output: { statusCode, payload: {} }, data });
}

export const GROUP_A = '120363000000000001@g.us';
export const GROUP_B = '120363000000000002@g.us';

/** Two participating groups as `groupFetchAllParticipating()` returns them (rc14 shapes). */
export function participatingGroups(): Record<string, GroupMetadata> {
  const group = (id: string, subject: string): GroupMetadata => ({
    id,
    addressingMode: 'lid' as GroupMetadata['addressingMode'],
    owner: '100000000000001@lid',
    subject,
    creation: 1690000000,
    participants: [
      { id: '100000000000001@lid', phoneNumber: '5500000000001@s.whatsapp.net', admin: 'superadmin' },
      { id: '100000000000002@lid', phoneNumber: '5500000000002@s.whatsapp.net', admin: null },
    ],
  });
  return { [GROUP_A]: group(GROUP_A, 'Example Group'), [GROUP_B]: group(GROUP_B, 'Second Example') };
}

/** Builds one socket double. */
export function createSocketDouble(groups: Record<string, GroupMetadata> = participatingGroups()): SocketDouble {
  const ev = makeEventBuffer(pino({ level: 'silent' }));
  const double: SocketDouble = {
    ev,
    user: { id: '5500000000009:12@s.whatsapp.net', lid: '100000000000009:12@lid' },
    groupFetchAllParticipating: () => Promise.resolve(groups),
    requestPairingCode: vi.fn<(phone: string) => Promise<string>>(() => Promise.resolve('ABCD1234')),
    end: vi.fn((error: Error | undefined) => {
      ev.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
    }),
    close(statusCode, data) {
      ev.emit('connection.update', {
        connection: 'close',
        lastDisconnect: { error: boomLike(statusCode, 'closed', data), date: new Date() },
      });
    },
  };
  return double;
}

/** A socket factory over doubles; `sockets` lists every socket created, in order. */
export function createDoubleFactory(): {
  factory: () => Promise<OpenedSocket>;
  sockets: SocketDouble[];
  saveCreds: ReturnType<typeof vi.fn>;
} {
  const sockets: SocketDouble[] = [];
  const saveCreds = vi.fn(() => Promise.resolve());
  const factory = (): Promise<OpenedSocket> => {
    const socket = createSocketDouble();
    sockets.push(socket);
    return Promise.resolve({ socket, saveCreds });
  };
  return { factory, sockets, saveCreds };
}
