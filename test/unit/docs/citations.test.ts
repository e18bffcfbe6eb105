import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_DIR, readProjectFile } from '../../helpers/compose-file.js';

// Every rule the code cites must be readable inside the repository. Citations take
// the forms `architecture.md §N` (also `§N, §M` and `§N–§M` lists) and `ADR NNNN`; the design contract
// they were first written against is not in the repository, so its own form must not remain.
const RETIRED_CITATION = ['DESIGN', '§'].join(' ');
/** Phrases that tell what the code did before instead of today's rule (spelled in pieces so this file passes). */
const HISTORY = new RegExp(
  ['\\bused', 'to\\b|\\bfresh-user', '(?:finding|defect)s?\\b|\\bbefore the', 'fix\\b'].join(' '),
  'i'
);
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', '.tools', '.data', '.bench-dist', '.test-results']);
const SCANNED_EXTENSIONS = ['.ts', '.js', '.mjs', '.md', '.yml', '.yaml', '.sh', '.sql'];
const SCANNED_NAMES = new Set(['Dockerfile', '.dockerignore', '.env.example']);

function listScannedFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : listScannedFiles(path);
    const isScanned = SCANNED_NAMES.has(entry.name) || SCANNED_EXTENSIONS.some((ext) => entry.name.endsWith(ext));
    return isScanned ? [relative(PROJECT_DIR, path)] : [];
  });
}

const files = listScannedFiles(PROJECT_DIR).map((path) => ({
  path,
  text: readFileSync(join(PROJECT_DIR, path), 'utf8'),
}));
const architecture = readProjectFile('docs/architecture.md');
const sectionNumbers = new Set([...architecture.matchAll(/^## §(\d+) \S/gm)].map((match) => Number(match[1])));
const adrNumbers = new Set(
  readdirSync(join(PROJECT_DIR, 'docs/adr'))
    .map((name) => /^(\d{4})-[a-z0-9-]+\.md$/.exec(name)?.[1])
    .filter((number): number is string => number !== undefined)
);

/**
 * Code, tests and folder READMEs: everything but docs/ (whose ADRs may name an issue as their source) and the
 * released migrations, whose text never changes (their comments describe the release they belong to).
 */
const codeFiles = files.filter(({ path }) => !path.startsWith('docs/') && !path.startsWith('lake/migrations/'));

/** Where `pattern` occurs in `codeFiles`, as `path:line: text`. */
function occurrences(pattern: RegExp): string[] {
  return codeFiles.flatMap(({ path, text }) =>
    text.split('\n').flatMap((line, index) => (pattern.test(line) ? [`${path}:${index + 1}: ${line.trim()}`] : []))
  );
}

/** Section numbers one citation names: `§3, §9` → 3, 9; `§3–§5` → 3, 4, 5. */
function citedSections(list: string): number[] {
  return [...list.matchAll(/§(\d+)(?:\s*[–-]\s*§(\d+))?/g)].flatMap((match) => {
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    return Array.from({ length: last - first + 1 }, (_, index) => first + index);
  });
}

const sectionCitations = files.flatMap(({ path, text }) =>
  [...text.matchAll(/architecture\.md (§\d+(?:\s*(?:,|–|-|\/|and|or)\s*§\d+)*)/g)].flatMap((match) =>
    citedSections(match[1]!).map((section) => ({ path, section }))
  )
);
const adrCitations = files.flatMap(({ path, text }) =>
  [...text.matchAll(/\bADR (\d{4})\b/g)].map((match) => ({ path, adr: match[1]! }))
);

describe('citations', () => {
  it('gives every numbered section of docs/architecture.md a stable anchor', () => {
    expect([...sectionNumbers]).toEqual(expect.arrayContaining([1, 3, 4, 5, 6, 7, 8, 9, 10, 11]));
    for (const section of sectionNumbers) {
      expect(architecture, `§${section}`).toMatch(new RegExp(`<a id="section-${section}"></a>\\n\\n## §${section} `));
    }
  });

  it('resolves every `architecture.md §N` citation to a section that exists', () => {
    expect(sectionCitations.filter(({ section }) => !sectionNumbers.has(section))).toEqual([]);
  });

  it('resolves every `ADR NNNN` citation to a file in docs/adr', () => {
    expect(adrCitations.length).toBeGreaterThan(0);
    expect(adrCitations.filter(({ adr }) => !adrNumbers.has(adr))).toEqual([]);
  });

  // Enabled by the citation rewrite: the integrator runs it after merging the branches that edit the
  // cited lines (see), then removes `.skip`.
  it('cites no section of the out-of-repository design contract any more', () => {
    expect(sectionCitations.length).toBeGreaterThan(100);
    const retired = files
      .filter(({ text }) => text.includes(RETIRED_CITATION))
      .map(({ path, text }) => `${path}: ${text.split(RETIRED_CITATION).length - 1}`);
    expect(retired).toEqual([]);
  });

  // An issue number points outside the repository: say the rule itself, or cite the ADR that decided it.
  it('cites no issue of the tracker in code, tests or folder READMEs', () => {
    expect(occurrences(/\bissues? #\d+/i)).toEqual([]);
  });

  // Comments state today's rule in the present tense; what the code did before belongs in commit messages.
  it('tells no history in code, tests or folder READMEs', () => {
    expect(occurrences(HISTORY)).toEqual([]);
  });
});
