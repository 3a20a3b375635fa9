import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/config';
import { TARGETS } from '../../src/targets';
import { publishedTests } from '../../src/targets/cucumberstudio/push-client';
import { joinUids } from '../../src/targets/cucumberstudio/push-uids';

const C = {
  CUCUMBERSTUDIO_UID: 'me@example.com',
  CUCUMBERSTUDIO_ACCESS_TOKEN: 'at-1234567',
  CUCUMBERSTUDIO_CLIENT: 'cl-1',
  CUCUMBERSTUDIO_PROJECT_ID: '1',
};

describe('joinUids (publication uids × JSON:API test ids, by scenario + dataset name)', () => {
  it('joins only the names unique on both sides; the rest is ambiguous', () => {
    const published = [
      { uid: 'u-card', scenarioName: 'Pay by card' },
      { uid: 'u-small', scenarioName: 'Pay by voucher', datasetName: 'small' },
      { uid: 'u-large', scenarioName: 'Pay by voucher', datasetName: 'large' },
      { uid: 'u-dup1', scenarioName: 'Checkout works' },
      { uid: 'u-dup2', scenarioName: 'Checkout works' },
      { uid: 'u-twice', scenarioName: 'Twice in export' },
      { uid: 'u-twice2', scenarioName: 'Twice in export' },
    ];
    const tests = [
      { id: '1', scenarioName: 'Pay by card' },
      { id: '2', scenarioName: 'Pay by voucher', datasetName: 'small' },
      { id: '3', scenarioName: 'Pay by voucher', datasetName: 'large' },
      { id: '4', scenarioName: 'Checkout works' },
      { id: '5', scenarioName: 'Checkout works' },
      { id: '6', scenarioName: 'Twice in export' },
      { id: '7', scenarioName: 'Generated since the export' },
    ];
    const { uids, ambiguous } = joinUids(published, tests);
    expect(Object.fromEntries(uids)).toEqual({ 1: 'u-card', 2: 'u-small', 3: 'u-large' });
    expect([...ambiguous].sort()).toEqual(['4', '5', '6']);
  });
});

describe('publishedTests (the run export, spec §5.2)', () => {
  it('reads every testSnapshot with its scenario and dataset names, one element lists included', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?><project format="0.1"><name>Shop</name><testRuns><testRun><name>N</name>
<scenarioSnapshots>
<scenarioSnapshot><name>Pay &amp; go</name><uid>s1</uid><testSnapshots><testSnapshot><scenarioName>Pay &amp; go</scenarioName><uid>t1</uid><index>0</index></testSnapshot></testSnapshots></scenarioSnapshot>
<scenarioSnapshot><name>V</name><uid>s2</uid><testSnapshots>
<testSnapshot><scenarioName>V</scenarioName><uid>t2</uid><datasetName>small</datasetName></testSnapshot>
<testSnapshot><scenarioName>V</scenarioName><uid>t3</uid><datasetName>large</datasetName></testSnapshot></testSnapshots></scenarioSnapshot>
</scenarioSnapshots></testRun></testRuns></project>`;
    expect(publishedTests(xml)).toEqual([
      { uid: 't1', scenarioName: 'Pay & go' },
      { uid: 't2', scenarioName: 'V', datasetName: 'small' },
      { uid: 't3', scenarioName: 'V', datasetName: 'large' },
    ]);
    expect(publishedTests('<project/>')).toEqual([]);
  });
});

describe('cucumberstudio.secretToken', () => {
  const resolve = (env: Record<string, string>) => resolveConfig({ definitions: TARGETS, options: {}, env, rootDir: '/r' });
  it('digits only: anything else is one line naming the option and the env var, never the value', () => {
    const c = resolve({ ...C, CUCUMBERSTUDIO_SECRET_TOKEN: 'abc-123' });
    const line = c.problems.find((p) => p.includes('secretToken'));
    expect(line).toContain('cucumberstudio.secretToken (env CUCUMBERSTUDIO_SECRET_TOKEN)');
    expect(line).toContain('digits only');
    expect(c.problems.join('\n')).not.toContain('abc-123');
  });
  it('a secret: redacted like the access token', () => {
    const c = resolve({ ...C, CUCUMBERSTUDIO_SECRET_TOKEN: '70431958264018375521' });
    expect(c.problems).toEqual([]);
    expect(c.secrets).toContain('70431958264018375521');
  });
});
