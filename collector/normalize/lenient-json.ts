/**
 * JSON text of anything, for the body of a quarantined (`dead`) item that strict normalization
 * rejected (architecture.md §1: dead-lettered visibly, with its body kept). Never throws: cycles become
 * `"[Circular]"`, bigints decimal strings, non-finite numbers their name, bytes `BufferJSON` form.
 */
export function lenientJson(value: unknown): string {
  const seen = new WeakSet<object>();
  const replacer = (_key: string, current: unknown): unknown => {
    if (typeof current === 'bigint') return current.toString();
    if (typeof current === 'number' && !Number.isFinite(current)) return String(current);
    if (ArrayBuffer.isView(current))
      return {
        type: 'Buffer',
        data: Buffer.from(current.buffer, current.byteOffset, current.byteLength).toString('base64'),
      };
    if (typeof current === 'object' && current !== null) {
      if (seen.has(current)) return '[Circular]';
      seen.add(current);
    }
    return current;
  };
  try {
    return JSON.stringify(value, replacer) ?? 'null';
  } catch (err) {
    return JSON.stringify({ unserializable: err instanceof Error ? err.message : 'unknown error' });
  }
}
