import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/config';
import { SettingsRefusedError } from '../../src/kit/target';
import { TARGETS } from '../../src/targets';
import { BUILT_IN_STATUSES as XRAY_STATUSES, resolveXrayStatuses } from '../../src/targets/xray/statuses';
import type { ZephyrClient } from '../../src/targets/zephyr/client';
import { checkZephyr } from '../../src/targets/zephyr/check';
import type { ZephyrConfig } from '../../src/targets/zephyr/config';
import { BUILT_IN_STATUSES, resolveStatusMap } from '../../src/targets/zephyr/statuses';

/**
 * One typo in a statusMap is one problem, naming the option the user set: `timedOut` follows `failed` unless
 * mapped itself, so `failed: 'FIAL'` was said twice, once of a `timedOut` the user never wrote.
 */
const TYPO = { failed: 'FIAL' };

describe('Zephyr: a statusMap typo in failed', () => {
  it('is one warning, of zephyr.statusMap.failed, whether the tenant or a dry run is asked', () => {
    for (const offline of [false, true]) {
      const { warnings } = resolveStatusMap(TYPO, BUILT_IN_STATUSES, offline);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^zephyr\.statusMap\.failed: .*"FIAL"/);
    }
    // timedOut still follows a failed status that resolves; mapped itself, it is said of itself.
    expect(resolveStatusMap({ failed: 'BLOCKED' }, BUILT_IN_STATUSES).byOutcome.timedOut).toBe(4);
    const both = resolveStatusMap({ failed: 'FAIL', timedOut: 'TIMEOUT' }, BUILT_IN_STATUSES).warnings;
    expect(both).toEqual([expect.stringMatching(/^zephyr\.statusMap\.timedOut: Zephyr has no status "TIMEOUT"/)]);
  });

  it('`check` prints one ✗ line for it', async () => {
    const client = { statuses: async () => BUILT_IN_STATUSES, cyclesNamed: async () => [] } as unknown as ZephyrClient;
    const cfg = { projectId: 1, versionId: -1, cycleName: 'c', statusMap: TYPO } as unknown as ZephyrConfig;
    const failed = (await checkZephyr(cfg, client)).filter((l) => !l.ok);
    expect(failed.map((l) => l.text)).toEqual([expect.stringMatching(/^zephyr\.statusMap\.failed: Zephyr has no status "FIAL"/)]);
  });
});

describe('Xray: a statusMap typo in failed', () => {
  it('is refused in one problem, of xray.statusMap.failed; a dry run warns once', () => {
    let refused: unknown;
    try {
      resolveXrayStatuses(TYPO, XRAY_STATUSES, false);
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(SettingsRefusedError);
    const message = (refused as Error).message;
    expect(message).toMatch(/^xray\.statusMap\.failed: Xray has no status "FIAL" \(known: /);
    expect(message.match(/xray\.statusMap\./g)).toHaveLength(1);
    const { warnings } = resolveXrayStatuses(TYPO, XRAY_STATUSES, true);
    expect(warnings).toEqual([expect.stringMatching(/^xray\.statusMap\.failed: "FIAL"/)]);
  });

  it('a tenant without the default FAILED is one problem too (timedOut shares it)', () => {
    expect(() => resolveXrayStatuses({}, ['PASSED', 'TODO', 'ABORTED'], false)).toThrow(/^xray\.statusMap\.failed: [^;]*\(known:/);
  });
});

it('CucumberStudio: a statusMap typo in failed is one problem, of cucumberstudio.statusMap.failed', () => {
  const env = { CUCUMBERSTUDIO_UID: 'u@x', CUCUMBERSTUDIO_ACCESS_TOKEN: 't', CUCUMBERSTUDIO_CLIENT: 'c', CUCUMBERSTUDIO_PROJECT_ID: '1' };
  const c = resolveConfig({ definitions: TARGETS, options: { cucumberstudio: { statusMap: { failed: 'fial' } } }, env });
  expect(c.problems).toEqual([expect.stringMatching(/^cucumberstudio\.statusMap\.failed: CucumberStudio has no status "fial"/)]);
});
