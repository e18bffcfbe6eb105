import { readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectPath, readProjectFile } from '../../helpers/compose-file.js';

// The image runs `npm prune --omit=dev`, so a package that compiled code imports at run
// time must be a dependency, and a package only tests, scripts or benchmarks use must not ship in it.
const packageJson = JSON.parse(readProjectFile('package.json')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const buildConfig = JSON.parse(readProjectFile('tsconfig.build.json')) as { include: string[] };
const TEST_ONLY_PACKAGES = ['@temporalio/testing', 'playwright-core', 'fast-check', 'ajv', 'yaml', 'vitest'];

function listTypeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listTypeScriptFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Package names a file imports at run time (type-only imports are erased by tsc and skipped). */
function runtimePackagesOf(source: string): string[] {
  const specifiers = [
    ...source.matchAll(/^\s*(?:import|export)(?!\s+type\b)[^'"]*?\sfrom\s+'([^'.][^']*)'/gm),
    ...source.matchAll(/^\s*import\s+'([^'.][^']*)'/gm),
    ...source.matchAll(/\bimport\(\s*'([^'.][^']*)'\s*\)/g),
  ].map((match) => match[1]!);
  return specifiers
    .filter((specifier) => !specifier.startsWith('node:') && !builtinModules.includes(specifier))
    .map((specifier) =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/')
    );
}

const runtimeImports = buildConfig.include.flatMap((folder) =>
  listTypeScriptFiles(projectPath(folder)).flatMap((file) =>
    runtimePackagesOf(readProjectFile(relative(projectPath('.'), file))).map((name) => ({
      file: relative(projectPath('.'), file),
      name,
    }))
  )
);

describe('runtime dependencies', () => {
  it('finds the imports it checks (the scan is not vacuous)', () => {
    expect(runtimeImports.map((item) => item.name)).toContain('@temporalio/client');
  });

  it('lists every package compiled code imports under dependencies, none under devDependencies', () => {
    const missing = runtimeImports.filter((item) => packageJson.dependencies[item.name] === undefined);
    expect(missing).toEqual([]);
  });

  it('keeps test-only packages in devDependencies, out of the production install', () => {
    for (const name of TEST_ONLY_PACKAGES) {
      expect(packageJson.dependencies[name], name).toBeUndefined();
      expect(packageJson.devDependencies[name], name).toBeDefined();
    }
  });
});
