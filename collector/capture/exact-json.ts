import { parse as parseLossless } from 'lossless-json';

/** Nesting depth up to which lossless-json is used; its recursive parser overflows the stack between 3,000 and 5,000. */
export const LOSSLESS_MAX_DEPTH = 1_000;

/** `JSON.parse`-compatible reviver. */
export type JsonReviver = (key: string, value: unknown) => unknown;

const INTEGER_LITERAL = /^-?\d+$/;

/** Whether a JSON number literal is an integer that a double cannot hold exactly (|n| > 2^53 − 1). */
function isUnsafeIntegerLiteral(literal: string): boolean {
  return INTEGER_LITERAL.test(literal) && !Number.isSafeInteger(Number(literal));
}

/** Where one unsafe integer literal sits in the text: [start, end). */
type Span = [number, number];

/**
 * One pass over JSON text, outside string literals: the deepest nesting and the spans of integer
 * literals above 2^53 − 1. Malformed text is scanned as well as it goes; the parser reports the error.
 */
function scanJson(text: string): { maxDepth: number; unsafeIntegers: Span[] } {
  let depth = 0;
  let maxDepth = 0;
  const unsafeIntegers: Span[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (char === '{' || char === '[') {
      maxDepth = Math.max(maxDepth, ++depth);
    } else if (char === '}' || char === ']') {
      depth--;
    } else if (char === '-' || (char >= '0' && char <= '9')) {
      let end = i + 1;
      while (end < text.length && /[\d.eE+-]/.test(text[end]!)) end++;
      if (isUnsafeIntegerLiteral(text.slice(i, end))) unsafeIntegers.push([i, end]);
      i = end - 1;
    }
  }
  return { maxDepth, unsafeIntegers };
}

/** Safe integers and all non-integers parse exactly as `JSON.parse` would; larger integers as bigint. */
function parseNumberExactly(literal: string): number | bigint {
  return isUnsafeIntegerLiteral(literal) ? BigInt(literal) : Number(literal);
}

/** Quotes each unsafe integer literal, so `JSON.parse` keeps its digits as a decimal string. */
function quoteSpans(text: string, spans: Span[]): string {
  let out = '';
  let from = 0;
  for (const [start, end] of spans) {
    out += `${text.slice(from, start)}"${text.slice(start, end)}"`;
    from = end;
  }
  return out + text.slice(from);
}

/**
 * Parses JSON text like `JSON.parse(text, reviver)`, except that integer literals above 2^53 − 1
 * keep every digit: they come back as `bigint` (through lossless-json), which normalization turns
 * into the exact decimal string a live session's protobuf Long becomes (architecture.md §4). Text without
 * such literals takes the native parser. A line nested deeper than {@link LOSSLESS_MAX_DEPTH}, where
 * lossless-json's recursion would overflow the stack, is parsed natively with those literals quoted:
 * the same decimal strings after normalization. Duplicate keys keep the last value, as `JSON.parse`
 * does. Source:.
 *
 * @throws SyntaxError when `text` is not JSON.
 */
export function parseJsonExactly(text: string, reviver?: JsonReviver): unknown {
  const { maxDepth, unsafeIntegers } = scanJson(text);
  if (unsafeIntegers.length === 0) return JSON.parse(text, reviver) as unknown;
  if (maxDepth > LOSSLESS_MAX_DEPTH) return JSON.parse(quoteSpans(text, unsafeIntegers), reviver) as unknown;
  return parseLossless(text, reviver ?? null, {
    parseNumber: parseNumberExactly,
    onDuplicateKey: ({ newValue }) => newValue,
  });
}
