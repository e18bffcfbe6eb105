import { createCipheriv, createDecipheriv } from 'node:crypto';

/** Bytes of the AES-GCM nonce and authentication tag in a packed box. */
export const AES_GCM_IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM of `plaintext` under `key` with nonce `iv`, packed as `iv | tag | ciphertext`. `associatedData` binds the
 * box to where it belongs (it must be given again to open it). The caller chooses the nonce: random for a stored
 * secret, derived from the plaintext where the same input must give the same box.
 */
export function sealAesGcm(key: Buffer, iv: Buffer, plaintext: string, associatedData?: Buffer): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  if (associatedData) cipher.setAAD(associatedData);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

/**
 * Opens a box written by {@link sealAesGcm}.
 * @throws Error when the box is too short, was altered, or was sealed under another key or associated data.
 */
export function openAesGcm(key: Buffer, packed: Buffer, associatedData?: Buffer): string {
  if (packed.length < AES_GCM_IV_BYTES + TAG_BYTES) throw new Error('sealed value too short');
  const decipher = createDecipheriv('aes-256-gcm', key, packed.subarray(0, AES_GCM_IV_BYTES));
  if (associatedData) decipher.setAAD(associatedData);
  decipher.setAuthTag(packed.subarray(AES_GCM_IV_BYTES, AES_GCM_IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(packed.subarray(AES_GCM_IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
    'utf8'
  );
}
