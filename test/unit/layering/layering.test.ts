/**
 * The layering check: no module of src/ imports a layer above its own, there are no import cycles, and examples/
 * reach src/ only through its front door (src/index.ts). The layers are declared once, in .dependency-cruiser.cjs;
 * dependency-cruiser reads every import, type-only ones included.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';

const repoRoot = process.cwd();
const require = createRequire(import.meta.url);
const config = require(join(repoRoot, '.dependency-cruiser.cjs')) as IConfiguration;

async function violations(baseDir: string): Promise<string[]> {
  const reported = await cruise(['src', 'examples'], { ...config.options, ruleSet: { forbidden: config.forbidden }, baseDir, validate: true });
  const output = reported.output as ICruiseResult;
  return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((c) => c.name).join(' → ')})` : ''}`);
}

describe('layering', () => {
  it('no module in src/ imports a higher layer, no imports go round in a cycle, examples use the front door', async () => {
    const found = await violations(repoRoot);
    assert.deepEqual(found, [], `imports against the layers declared in .dependency-cruiser.cjs:\n${found.join('\n')}`);
  });

  it('the check reports an upward import (storage → apiserver) and an example around the front door, nothing else, in a fixture tree', async () => {
    const found = await violations(join(repoRoot, 'test/unit/layering/fixture'));
    assert.deepEqual(found, [
      'examples-import-around-the-front-door: examples/embedder.ts → src/storage/backend.ts',
      'storage-imports-upward: src/storage/backend.ts → src/apiserver/host.ts',
    ]);
  });
});
