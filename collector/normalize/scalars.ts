/**
 * Scalar conversions of normalization (architecture.md §4): protobuf Longs, bigints and bytes. The rule for
 * integers: a value that is a safe integer becomes a JSON number, anything larger an exact decimal
 * string. Live decodes give numbers for timestamps while history gives Longs, so numbers are the form
 * both sides share.
 */

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Safe integer → number, otherwise the exact decimal string. */
export function bigIntToJson(value: bigint): number | string {
  return value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value.toString();
}

/** True for a Long instance or a plain `{low, high, unsigned?}` object (the JSON of a Long). */
export function isLongLike(value: object): value is { low: number; high: number; unsigned?: boolean } {
  const record = value as Record<string, unknown>;
  if (!Number.isInteger(record.low) || !Number.isInteger(record.high)) return false;
  if (record.unsigned !== undefined && typeof record.unsigned !== 'boolean') return false;
  return Object.keys(value).every((key) => key === 'low' || key === 'high' || key === 'unsigned');
}

/** Exact value of a Long given as 32-bit halves. */
export function longToJson(value: { low: number; high: number; unsigned?: boolean }): number | string {
  const highHalf = value.unsigned === true ? value.high >>> 0 : value.high | 0;
  // |high| < 2^21 keeps |high·2^32 + low| ≤ 2^53, which a double holds exactly: no BigInt needed
  // for the common case (timestamps), and the safe-integer test below is the same rule.
  if (highHalf < 0x200000 && highHalf >= -0x200000) {
    const exact = highHalf * 0x100000000 + (value.low >>> 0);
    if (Number.isSafeInteger(exact)) return exact;
  }
  const high = value.unsigned === true ? BigInt(value.high >>> 0) : BigInt(value.high | 0);
  return bigIntToJson((high << 32n) + BigInt(value.low >>> 0));
}

const DECIMAL = /^-?\d{1,20}$/;

/** A decimal string under a Long field → number when safe; otherwise (or not decimal) unchanged. */
export function decimalStringToJson(value: string): number | string {
  return DECIMAL.test(value) ? bigIntToJson(BigInt(value)) : value;
}

/** The `BufferJSON` tagged form of Baileys: `{ type: 'Buffer', data: <base64> }`. */
export interface TaggedBytes {
  type: 'Buffer';
  data: string;
}

/** Bytes of any typed-array view as `BufferJSON` tagged base64. */
export function viewToTagged(view: ArrayBufferView): TaggedBytes {
  return { type: 'Buffer', data: Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString('base64') };
}

/**
 * Recognizes serialized bytes: `{type:'Buffer', data: number[] | base64}` (Node's and BufferJSON's
 * JSON forms) and index-keyed objects `{"0": 12, "1": 255, …}` (`JSON.stringify` of a Uint8Array).
 * @returns the tagged form, or undefined when `value` is not bytes.
 */
export function serializedBytesToTagged(value: object): TaggedBytes | undefined {
  const record = value as Record<string, unknown>;
  if (record.type === 'Buffer' && Object.keys(record).length === 2) {
    if (typeof record.data === 'string') return { type: 'Buffer', data: record.data };
    if (Array.isArray(record.data) && record.data.every(isByte))
      return { type: 'Buffer', data: Buffer.from(record.data).toString('base64') };
    return undefined;
  }
  const keys = Object.keys(record);
  if (keys.length === 0 || Array.isArray(value)) return undefined;
  for (let i = 0; i < keys.length; i++) {
    if (keys[i] !== String(i) || !isByte(record[i])) return undefined;
  }
  return { type: 'Buffer', data: Buffer.from(keys.map((key) => record[key] as number)).toString('base64') };
}

function isByte(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 255;
}
