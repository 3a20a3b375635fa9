/** Inline Playwright suites shared by the integration tests. */

/** Every row of the status table, worst-wins, two keys on one test, a run-time annotation. */
export const ZEPHYR_SUITE = {
  'a.spec.ts': `
const { test, expect } = require('@playwright/test');
test('pass by annotation', { annotation: { type: 'zephyr', description: 'PROJ-1' } }, () => { expect(1).toBe(1); });
test('pass by title tag @PROJ-2', () => {});
test('fails', { tag: '@PROJ-3' }, () => { expect(1).toBe(2); });
test('flaky', { tag: '@PROJ-4' }, ({}, testInfo) => { if (testInfo.retry === 0) throw new Error('first attempt fails'); });
test('skipped', { tag: '@PROJ-5' }, () => { test.skip(); });
test('expected failure', { tag: '@PROJ-6' }, () => { test.fail(); expect(1).toBe(2); });
`,
  'b.spec.ts': `
const { test, expect } = require('@playwright/test');
test('two keys', { annotation: [{ type: 'zephyr', description: 'PROJ-7' }, { type: 'zephyr', description: 'PROJ-8' }] }, () => {});
test('shared ok', { tag: '@PROJ-9' }, () => {});
test('shared bad', { tag: '@PROJ-9' }, () => { expect(true, 'shared key must fail').toBe(false); });
test('times out', { tag: '@PROJ-10' }, async () => { test.setTimeout(300); await new Promise((r) => setTimeout(r, 3000)); });
test('run-time annotation', () => { test.info().annotations.push({ type: 'zephyr', description: 'PROJ-11' }); });
test('unmapped', () => {});
`,
};

export const ZEPHYR_EXPECTED: Record<string, number> = {
  'PROJ-1': 1,
  'PROJ-2': 1,
  'PROJ-3': 2,
  'PROJ-4': 1,
  'PROJ-5': -1,
  'PROJ-6': 1,
  'PROJ-7': 1,
  'PROJ-8': 1,
  'PROJ-9': 2,
  'PROJ-10': 2,
  'PROJ-11': 1,
};

/** n passing tests mapped to PROJ-<offset+1>.. with every k-th failing. */
export function bulkSuite(n: number, failEvery = 0, offset = 0, files = 4): Record<string, string> {
  const out: Record<string, string> = {};
  for (let f = 0; f < files; f++) {
    const lines = [`const { test, expect } = require('@playwright/test');`];
    for (let i = f; i < n; i += files) {
      const key = `PROJ-${offset + i + 1}`;
      const fail = failEvery > 0 && (i + 1) % failEvery === 0;
      lines.push(`test('t${i}', { tag: '@${key}' }, () => { expect(${fail ? 1 : 0}).toBe(0); });`);
    }
    out[`bulk${f}.spec.ts`] = lines.join('\n');
  }
  return out;
}

/** CucumberStudio: statuses, datasets (scenario 7 has two), an ambiguous name (11 and 12 share one). */
export const CS_SUITE = {
  'cs.spec.ts': `
const { test, expect } = require('@playwright/test');
test('s1 passes', { annotation: { type: 'cucumberstudio', description: '1' } }, () => {});
test('s2 fails', { tag: '@cs-2' }, () => { expect('a').toBe('b'); });
test('s3 flaky', { tag: '@cs-3' }, ({}, info) => { if (info.retry === 0) throw new Error('first try'); });
test('s4 skipped', { tag: '@cs-4' }, () => { test.skip(); });
test('s5 ok', { tag: '@cs-5' }, () => {});
test('s5 bad', { tag: '@cs-5' }, () => { throw new Error('s5 broke'); });
test('s7 datasets', { tag: '@cs-7' }, () => {});
test('s11 ambiguous name, fails', { tag: '@cs-11' }, () => { throw new Error('s11 broke'); });
test('s12 ambiguous name, passes', { tag: '@cs-12' }, () => {});
test('not mapped', () => {});
`,
};

/** scenario id -> expected status of the last result of each of its tests. */
export const CS_EXPECTED: Record<number, string> = {
  1: 'passed',
  2: 'failed',
  3: 'passed',
  4: 'skipped',
  5: 'failed',
  7: 'passed',
  11: 'failed',
  12: 'passed',
};
