/**
 * The house's figures (ADR 0021, ADR 0024): the largest top-level folder's share of product lines, and the import
 * graph's cycles and upward imports, read from the tracked sources as text. Run: `npx tsx scripts/house-figures.ts`
 * for the work tree, `--rev REV` for a commit (`--rev 6a88dba`), `--json` for one JSON object. Product code is every tracked `.ts`/`.js`/`.mjs`/`.cjs` file outside tests,
 * benchmarks, scripts, examples and the root's configuration files.
 *
 * - Cycle: files that import each other in a loop (Tarjan's strongly connected components), once over every import
 *   and once over the imports that remain at run time (`import type` and all-`type` specifier lists left out).
 * - Upward import: an import between two top-level folders that import each other, in the direction with fewer
 *   imports: the folders' layering says the other direction is the intended one.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NOT_PRODUCT = /^(test|bench|scripts|examples|docs|deploy|\.ci)\/|^[^/]+$/;
const SOURCE = /\.(ts|js|mjs|cjs)$/;

interface Edge {
  from: string;
  to: string;
  isTypeOnly: boolean;
}

/** The commit to read (`--rev REV`), or undefined for the work tree. */
const REV = ((index) => (index < 0 ? undefined : process.argv[index + 1]))(process.argv.indexOf('--rev'));

const git = (args: string[]): string =>
  execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

function productFiles(): string[] {
  const listed = REV === undefined ? git(['ls-files']) : git(['ls-tree', '-r', '--name-only', REV]);
  return listed.split('\n').filter((path) => SOURCE.test(path) && !path.endsWith('.d.ts') && !NOT_PRODUCT.test(path));
}

const readSource = (path: string): string =>
  REV === undefined ? readFileSync(join(ROOT, path), 'utf8') : git(['show', `${REV}:${path}`]);

const topFolder = (path: string): string => path.split('/')[0] ?? path;

/** The file a relative specifier names: `./x.js` is `x.ts` when only the TypeScript source exists. */
function resolveSpecifier(from: string, specifier: string, known: ReadonlySet<string>): string | undefined {
  const base = normalize(join(dirname(from), specifier));
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((candidate) => known.has(candidate));
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Whether `import { type A, type B } from` takes types only. */
function takesTypesOnly(clause: string): boolean {
  const names = /^\{([^}]*)\}$/.exec(clause.trim())?.[1];
  if (names === undefined) return false;
  const specifiers = names
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return specifiers.length > 0 && specifiers.every((name) => name.startsWith('type '));
}

function readEdges(files: readonly string[], texts: ReadonlyMap<string, string>): Edge[] {
  const known = new Set(files);
  return files.flatMap((from) => {
    const text = texts.get(from) ?? '';
    const edges: Edge[] = [];
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[4] ?? '';
      const to = specifier.startsWith('.') ? resolveSpecifier(from, specifier, known) : undefined;
      if (to !== undefined)
        edges.push({ from, to, isTypeOnly: match[2] !== undefined || takesTypesOnly(match[3] ?? '') });
    }
    for (const match of text.matchAll(DYNAMIC_IMPORT)) {
      const specifier = match[1] ?? '';
      const to = specifier.startsWith('.') ? resolveSpecifier(from, specifier, known) : undefined;
      if (to !== undefined) edges.push({ from, to, isTypeOnly: false });
    }
    return edges;
  });
}

/** Tarjan's strongly connected components with more than one member. */
function cycles(nodes: readonly string[], edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>(nodes.map((node) => [node, []]));
  for (const edge of edges) if (edge.from !== edge.to) next.get(edge.from)?.push(edge.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return found;
}

/** Imports between two top-level folders that import each other, in the direction with fewer imports. */
function upwardImports(edges: readonly Edge[]): Edge[] {
  const across = edges.filter((edge) => topFolder(edge.from) !== topFolder(edge.to));
  const count = (from: string, to: string): number =>
    across.filter((edge) => topFolder(edge.from) === from && topFolder(edge.to) === to).length;
  return across.filter((edge) => {
    const [from, to] = [topFolder(edge.from), topFolder(edge.to)];
    const back = count(to, from);
    const forth = count(from, to);
    return back > 0 && (forth < back || (forth === back && from > to));
  });
}

function main(): void {
  const files = productFiles();
  const texts = new Map(files.map((path) => [path, readSource(path)]));
  const lines = new Map<string, number>();
  for (const path of files) {
    const count = (texts.get(path) ?? '').split('\n').length;
    lines.set(topFolder(path), (lines.get(topFolder(path)) ?? 0) + count);
  }
  const total = [...lines.values()].reduce((sum, count) => sum + count, 0);
  const folders = [...lines.entries()].sort((a, b) => b[1] - a[1]);
  const migrations = files
    .filter((path) => path.startsWith('lake/migrations/'))
    .reduce((sum, path) => sum + (texts.get(path) ?? '').split('\n').length, 0);
  const edges = readEdges(files, texts);
  const figures = {
    productFiles: files.length,
    productLines: total,
    folders: folders.map(([folder, count]) => ({
      folder,
      lines: count,
      share: Math.round((1000 * count) / total) / 10,
    })),
    lakeMigrationLines: migrations,
    cycles: cycles(files, edges),
    runtimeCycles: cycles(
      files,
      edges.filter((edge) => !edge.isTypeOnly)
    ),
    upwardImports: upwardImports(edges).map(
      (edge) => `${edge.from} -> ${edge.to}${edge.isTypeOnly ? ' (type only)' : ''}`
    ),
  };
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
    return;
  }
  const [largest] = figures.folders;
  const upwardPairs = new Set(
    figures.upwardImports.map((edge) => edge.split(' ').map(topFolder).slice(0, 3).join(' '))
  );
  const out = [
    `product code: ${figures.productFiles} files, ${figures.productLines} lines`,
    `largest top-level folder: ${largest?.folder ?? '-'} ${largest?.lines ?? 0} lines = ${largest?.share ?? 0} % (of which lake/migrations ${figures.lakeMigrationLines})`,
    `folders: ${figures.folders.map(({ folder, share }) => `${folder} ${share} %`).join(', ')}`,
    `cycles: ${figures.cycles.length} (${figures.runtimeCycles.length} at run time)`,
    ...figures.cycles.map((cycle) => `  ${cycle.join(' <-> ')}`),
    `upward imports: ${upwardPairs.size} folder pair(s), ${figures.upwardImports.length} file import(s), ${
      figures.upwardImports.filter((edge) => edge.endsWith('(type only)')).length
    } of them type only`,
    ...figures.upwardImports.map((edge) => `  ${edge}`),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

main();
