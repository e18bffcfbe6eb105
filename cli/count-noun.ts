const englishPlural = new Intl.PluralRules('en-US');

/**
 * `1 link`, `2 links`, `0 rows`: a count with its noun in the right number ("1 links",
 * "1 rows", "1 aliases" in CLI output).
 *
 * @param plural - the plural form when it is not `singular` + `s` (e.g. `aliases`, `entries`).
 */
export function countNoun(count: number, singular: string, plural = `${singular}s`): string {
  return `${String(count)} ${englishPlural.select(count) === 'one' ? singular : plural}`;
}
