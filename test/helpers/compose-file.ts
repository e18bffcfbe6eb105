import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** Project root, from test/unit/deploy/. */
export const PROJECT_DIR = fileURLToPath(new URL('../../', import.meta.url));

/** Path of a file relative to the project root. */
export const projectPath = (relative: string): string => join(PROJECT_DIR, relative);

/** Text of a project file. */
export const readProjectFile = (relative: string): string => readFileSync(projectPath(relative), 'utf8');

/** The part of a compose service these tests look at. */
export interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  entrypoint?: string[] | string;
  environment?: Record<string, string>;
  env_file?: unknown;
  volumes?: string[];
  ports?: string[];
  restart?: string;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[] | string; disable?: boolean };
  stop_grace_period?: string;
}

/** The parsed compose file: YAML merge keys (`<<: *anchor`) resolved as Compose resolves them. */
export interface ComposeFile {
  name?: string;
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/** Parses `docker-compose.temporal.yml` with merge keys resolved. */
export function loadComposeFile(): ComposeFile {
  return parse(readProjectFile('docker-compose.temporal.yml'), { merge: true }) as ComposeFile;
}

/**
 * The Compose specification JSON schema, as bundled by the `dclint` dev dependency
 * (`schemas/compose.schema.json`, a copy of compose-spec/compose-spec `schema/compose-spec.json`).
 */
export function loadComposeSpecSchema(): Record<string, unknown> {
  const require = createRequire(import.meta.url);
  const packageDir = dirname(require.resolve('dclint/package.json'));
  return JSON.parse(readFileSync(join(packageDir, 'schemas', 'compose.schema.json'), 'utf8')) as Record<
    string,
    unknown
  >;
}

/**
 * Names of the variables a compose file interpolates: `${NAME}`, `${NAME:-default}`, `${NAME:?message}`
 * and `$NAME` outside comment lines; `$$` is an escaped dollar and not a variable.
 */
export function interpolatedVariableNames(text: string): string[] {
  const names = new Set<string>();
  // Compose interpolates values, not comments.
  const withoutComments = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
  const unescaped = withoutComments.replaceAll('$$', '');
  for (const match of unescaped.matchAll(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:[:?\-+][^}]*)?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g
  )) {
    names.add(match[1] ?? match[2] ?? '');
  }
  return [...names].sort();
}

/** Default of `${NAME:-default}` wherever the compose file uses one, or undefined. */
export function interpolationDefaults(text: string, name: string): string[] {
  const defaults = new Set<string>();
  for (const match of text.matchAll(new RegExp(`\\$\\{${name}:-([^}]*)\\}`, 'g'))) defaults.add(match[1] ?? '');
  return [...defaults];
}

/** Keys set in `.env.example`, commented-out ones (`# KEY=`) included: optional keys are shown that way. */
export function envExampleKeys(text: string): Set<string> {
  const keys = new Set<string>();
  for (const match of text.matchAll(/^#?\s?([A-Z][A-Z0-9_]*)=/gm)) keys.add(match[1] ?? '');
  return keys;
}

/** Variable names that appear in backticks in a Markdown document (`NAME`). */
export function markdownCodeNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(match[1] ?? '');
  return names;
}
