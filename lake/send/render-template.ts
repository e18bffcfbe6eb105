// `{{ name }}`: a variable name is a letter or underscore, then letters, digits or underscores.
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** Variable names a template body uses, each once, in order of first use (ADR 0015). */
export function placeholdersOf(body: string): string[] {
  return [...new Set([...body.matchAll(PLACEHOLDER)].map((match) => match[1] ?? ''))];
}

/**
 * What is wrong with a template body in words, or null (ADR 0015): empty text (the send API refuses it, so the
 * version could never send), or a `{{` or `}}` left over once every `{{name}}` is taken out (`Hi {{ name`), which
 * would be sent as it is instead of being filled in.
 */
export function describeTemplateBodyProblem(body: string): string | null {
  if (body.trim() === '') return 'the body is empty; a template needs message text';
  const rest = body.replace(PLACEHOLDER, '');
  const stray = ['{{', '}}'].find((braces) => rest.includes(braces));
  if (stray === undefined) return null;
  return (
    `the body has a "${stray}" that is not part of a placeholder; ` +
    'write each variable as {{name}} (a letter or _, then letters, digits or _)'
  );
}

/** What {@link renderTemplate} found wrong with the caller's variables. */
export interface TemplateVariableProblem {
  missing: string[];
  unknown: string[];
}

/**
 * Renders a template version's body with the caller's variables (ADR 0015): each
 * `{{name}}` becomes the value's text, in one pass (a value that itself contains `{{x}}` stays as it is).
 * Rendered once, at accept time: the stored text is what every retry sends.
 *
 * @param declared the variables the version declares; every one must be given, and no other.
 * @returns the text, or the missing and unknown variable names.
 */
export function renderTemplate(
  body: string,
  declared: readonly string[],
  variables: Readonly<Record<string, string | number>>
): { text: string } | { problem: TemplateVariableProblem } {
  const given = Object.keys(variables);
  const missing = declared.filter((name) => !Object.hasOwn(variables, name));
  const unknown = given.filter((name) => !declared.includes(name));
  if (missing.length > 0 || unknown.length > 0) return { problem: { missing, unknown } };
  return { text: body.replace(PLACEHOLDER, (_match, name: string) => String(variables[name])) };
}
