import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config';
import { zephyr, zephyrPacing } from '../../src/targets/zephyr/definition';
import type { ZephyrConfig } from '../../src/targets/zephyr/config';

const env = { ZEPHYR_ACCESS_KEY: 'a', ZEPHYR_SECRET_KEY: 's', ZEPHYR_ACCOUNT_ID: 'u', ZEPHYR_PROJECT_ID: '1', ZEPHYR_VERSION_ID: '-1' };
const config = (extra: Record<string, string> = {}) => {
  const c = resolveConfig({ definitions: [zephyr], options: {}, env: { ...env, ...extra } });
  expect(c.problems).toEqual([]);
  return c.targets[0].config as ZephyrConfig;
};

describe('Zephyr pacing defaults (about 30 calls a minute per user, shared by every process on the key)', () => {
  it('one process paces at 28 a minute; N shards share the 28; a setting wins; off leaves it to the 429 waits', () => {
    expect(zephyrPacing(config(), 1)).toEqual({ count: 28, windowMs: 60_000 });
    expect(zephyrPacing(config(), 4)).toEqual({ count: 7, windowMs: 60_000 });
    expect(zephyrPacing(config(), 40)).toEqual({ count: 1, windowMs: 60_000 });
    expect(zephyrPacing(config({ ZEPHYR_RATE_LIMIT: '10/30' }), 4)).toEqual({ count: 10, windowMs: 30_000 });
    expect(zephyrPacing(config({ ZEPHYR_RATE_LIMIT: 'off' }), 1)).toBeNull();
  });
});
