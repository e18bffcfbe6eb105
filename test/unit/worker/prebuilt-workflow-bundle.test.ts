import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  findPrebuiltWorkflowBundle,
  installedWorkflowSdkVersion,
  PREBUILT_WORKFLOW_BUNDLE_FILES as FILES,
} from '../../../worker/prebuilt-workflow-bundle.js';

/** Sets a file's time `seconds` from now, as a build or an edit at that moment would. */
function touchAt(path: string, seconds: number): void {
  const at = new Date(Date.now() + seconds * 1000);
  utimesSync(path, at, at);
}

// A compiled workflows folder as `npm run build` leaves it: modules, then the bundles and their manifest.
describe('findPrebuiltWorkflowBundle', () => {
  let dir: string;
  let converter: string;
  const index = (): string => join(dir, 'index.js');
  const build = (sdkVersion = installedWorkflowSdkVersion(), at = dir): void => {
    for (const file of [FILES.plain, FILES.encodedFailures]) writeFileSync(join(at, file), 'bundle');
    writeFileSync(join(at, FILES.manifest), JSON.stringify({ sdkVersion }));
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wa-lake-bundle-'));
    converter = join(dir, 'failure-converter.cjs');
    writeFileSync(index(), 'export {};');
    writeFileSync(converter, 'module.exports = {};');
    touchAt(index(), -60);
    touchAt(converter, -60);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('picks the bundle matching the failure converter the worker uses', () => {
    build();
    expect(findPrebuiltWorkflowBundle(index(), undefined)).toEqual({ codePath: join(dir, FILES.plain) });
    expect(findPrebuiltWorkflowBundle(index(), converter)).toEqual({ codePath: join(dir, FILES.encodedFailures) });
  });

  it("serves workflows run from source the checkout's build, while no source is newer than it", () => {
    const checkout = mkdtempSync(join(tmpdir(), 'wa-lake-checkout-'));
    try {
      const sources = join(checkout, 'workflows');
      mkdirSync(sources);
      writeFileSync(join(sources, 'index.ts'), 'export {};');
      touchAt(join(sources, 'index.ts'), -60);
      const compiled = join(checkout, 'dist', 'workflows');
      mkdirSync(compiled, { recursive: true });
      build(undefined, compiled);
      expect(findPrebuiltWorkflowBundle(join(sources, 'index.ts'), undefined)).toEqual({
        codePath: join(compiled, FILES.plain),
      });
      touchAt(join(sources, 'index.ts'), 60);
      expect(findPrebuiltWorkflowBundle(join(sources, 'index.ts'), undefined)).toBeNull();
    } finally {
      rmSync(checkout, { recursive: true, force: true });
    }
  });

  it('bundles at start (null) without a build, or with a build of another SDK', () => {
    expect(findPrebuiltWorkflowBundle(index(), undefined)).toBeNull();
    build('0.0.0-other');
    expect(findPrebuiltWorkflowBundle(index(), undefined)).toBeNull();
  });

  it('bundles at start (null) once a compiled workflow or the failure converter is newer than the bundle', () => {
    build();
    touchAt(index(), 60);
    expect(findPrebuiltWorkflowBundle(index(), undefined)).toBeNull();
    touchAt(index(), -60);
    expect(findPrebuiltWorkflowBundle(index(), undefined)).not.toBeNull();
    touchAt(converter, 60);
    expect(findPrebuiltWorkflowBundle(index(), converter)).toBeNull();
    expect(findPrebuiltWorkflowBundle(index(), undefined)).not.toBeNull();
  });
});
