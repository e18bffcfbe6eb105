/**
 * The one rule for a name that shows a phone number (docs/engagement.md "Names"): a name made only of the characters
 * a phone number is written with — digits, white space, `+`, `-`, `(`, `)`, `.` — holding at least 8 digits, such as
 * a push name `+55 11 91234-5678`. The report, the dashboard and the member search mask such a name as they mask a
 * phone number, so it is written once here, for TypeScript and for SQL.
 */

/** The characters of a phone-like name as one pattern that JavaScript (`u` flag) and PostgreSQL read alike. */
export const PHONE_LIKE_NAME_PATTERN =
  '^[0-9\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff+().-]+$';
/** The fewest digits that make such a name a phone number (no phone number is shorter; `2024` or `(1)` is not one). */
export const MIN_PHONE_NAME_DIGITS = 8;

const PHONE_LIKE_NAME = new RegExp(PHONE_LIKE_NAME_PATTERN, 'u');

/** Whether `name` is a phone-like name (the rule above). */
export function isPhoneLikeName(name: string): boolean {
  return PHONE_LIKE_NAME.test(name) && name.replace(/[^0-9]/g, '').length >= MIN_PHONE_NAME_DIGITS;
}

/**
 * The same rule in SQL over the text expression `column`, with `patternParameter` (such as `$5`) bound to
 * {@link PHONE_LIKE_NAME_PATTERN}.
 */
export function phoneLikeNameSql(column: string, patternParameter: string): string {
  return `(${column} ~ ${patternParameter} AND length(regexp_replace(${column}, '[^0-9]', '', 'g')) >= ${String(MIN_PHONE_NAME_DIGITS)})`;
}

/**
 * The digits of a phone-like name in SQL, the international prefix `00` dropped as `phoneDigitsOfNumber` drops it
 * (`+55 21 99876-5432` and `0055 21 99876 5432` → `5521998765432`), to compare with a typed number's digits.
 */
export function phoneLikeNameDigitsSql(column: string): string {
  return `regexp_replace(regexp_replace(${column}, '[^0-9]', '', 'g'), '^00', '')`;
}
