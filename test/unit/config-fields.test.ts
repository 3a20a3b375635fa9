import { describe, expect, it } from 'vitest';
import { bool, int, Problems, rate, readFields, secretsOf, statusMap, str, url } from '../../src/kit/config-fields';

/** A small table, as a target would write one. */
const FIELDS = {
  token: str('T_TOKEN', { required: 'the token page', secret: true }),
  name: str('T_NAME', { default: 'unnamed' }),
  size: int('T_SIZE', 1, { default: 5 }),
  loud: bool('T_LOUD', false),
  pace: rate('T_RATE', { count: 10, windowMs: 60_000 }),
  site: url('T_SITE'),
  map: statusMap(),
};
const read = (options: Record<string, unknown>, env: Record<string, string | undefined>, enabledBy?: 'token'[]) => {
  const p = new Problems();
  return { values: readFields(p, FIELDS, options, env, 't.', enabledBy), lines: p.lines };
};

describe('readFields: one table, options > env > defaults', () => {
  it('takes the option over the env var over the default; empty and blank count as unset', () => {
    expect(read({ token: 'opt', size: 7 }, { T_TOKEN: 'env', T_SIZE: '9', T_NAME: 'from env', T_LOUD: 'yes' })).toEqual({
      values: { token: 'opt', name: 'from env', size: 7, loud: true, pace: { count: 10, windowMs: 60000 }, site: undefined, map: {} },
      lines: [],
    });
    expect(read({ token: 'k', name: '' }, { T_NAME: '  ', T_SITE: 'https://x.test/' }).values).toMatchObject({
      name: 'unnamed',
      site: 'https://x.test',
    });
  });
  it('`off` is a setting of its own, not the default', () => {
    expect(read({ token: 'k', pace: 'off' }, {}).values?.pace).toBeNull();
  });
  it('a bad value is one line naming the option and the env var, and the default is used', () => {
    const { values, lines } = read({ token: 'k' }, { T_SIZE: '0', T_LOUD: 'loud' });
    expect(values).toMatchObject({ size: 5, loud: false });
    expect(lines).toEqual([
      't.size (env T_SIZE): expected a whole number ≥ 1, got "0"',
      't.loud (env T_LOUD): expected true/false (or 1/0), got "loud"',
    ]);
  });
  it('a required option that is absent says where to find it; one given with the wrong type is not also "required"', () => {
    expect(read({}, {}).lines).toEqual(['t.token (env T_TOKEN): is required (the token page)']);
    expect(read({ token: 1234 }, {}).lines).toEqual(['t.token (env T_TOKEN): expected a string, got number']);
  });
  it('nested keys (statusMap) name their own line, without an env var', () => {
    expect(read({ token: 'k', map: { passed: 1, flakey: 2 } }, {})).toMatchObject({
      values: { map: { passed: 1 } },
      lines: ['t.map.flakey: unknown outcome; use one of passed, flaky, failed, timedOut, skipped, interrupted'],
    });
  });
  it('enabledBy: nothing is read or reported while none of those options is given', () => {
    expect(read({ size: 'x' }, { T_LOUD: '?' }, ['token'])).toEqual({ values: undefined, lines: [] });
    expect(read({ size: 'x' }, { T_TOKEN: 'k' }, ['token']).lines).toHaveLength(1);
  });
  it('secrets: the secret rows as given, longest first', () => {
    const fields = { a: str('A', { secret: true }), b: str('B', { secret: true }), c: str('C') };
    expect(secretsOf(fields, { a: 'abcd' }, { B: 'abcd-longer', C: 'not-secret' }).filter((s) => /^[\w-]+$/.test(s))).toEqual([
      'abcd-longer',
      'abcd',
    ]);
  });
});
