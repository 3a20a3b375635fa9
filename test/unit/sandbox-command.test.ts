/** The sandbox command's `--set` flags (the rest of the command is a thin shell over startSandbox). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySetting, parseSetting } from '../../src/sandbox/command';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(() => sandbox.close());

describe('sandbox --set', () => {
  it('parses <service>.<setting>=<value> (the value may hold "=" and spaces) and refuses other shapes', () => {
    expect(parseSetting('zephyr.retryAfter=zero')).toEqual({ service: 'zephyr', key: 'retryAfter', value: 'zero' });
    expect(parseSetting('cucumberstudio.errorBodyStyle={"default":"text"}')).toEqual({
      service: 'cucumberstudio',
      key: 'errorBodyStyle',
      value: '{"default":"text"}',
    });
    for (const bad of ['retryAfter=zero', 'zephyr.retryAfter', 'zephyr.=x', '=x']) {
      expect(() => parseSetting(bad)).toThrow(`--set expects <service>.<setting>=<value> (e.g. zephyr.retryAfter=zero), got "${bad}"`);
    }
  });

  it('applies values as JSON when that fits the setting, else as text', () => {
    applySetting(sandbox, parseSetting('zephyr.retryAfter=zero'));
    applySetting(sandbox, parseSetting('cucumberstudio.generationAnswer=423')); // a string setting that looks like a number
    applySetting(sandbox, parseSetting('cucumberstudio.generationDelayMs=1500'));
    applySetting(sandbox, parseSetting('cucumberstudio.deviseAuthErrors=true'));
    applySetting(sandbox, parseSetting('cucumberstudio.errorBodyStyle={"404":"empty","default":"devise"}'));
    applySetting(sandbox, parseSetting('cucumberstudio.patchRunStatus=201'));
    expect(sandbox.settings().zephyr).toMatchObject({ retryAfter: 'zero' });
    expect(sandbox.settings().cucumberstudio).toMatchObject({
      generationAnswer: '423',
      generationDelayMs: 1500,
      deviseAuthErrors: true,
      errorBodyStyle: { 404: 'empty', default: 'devise' },
      patchRunStatus: 201,
    });
  });

  it("reports the service's own complaint when neither reading fits; nothing is applied", () => {
    const before = sandbox.settings();
    expect(() => applySetting(sandbox, parseSetting('zephyr.retryAfter=soon'))).toThrow(
      /retryAfter must be one of 'none', 'zero', 'seconds'/,
    );
    expect(() => applySetting(sandbox, parseSetting('cucumberstudio.generationDelayMs=-5'))).toThrow(/generationDelayMs must be a number/);
    expect(() => applySetting(sandbox, parseSetting('zephyr.colour=red'))).toThrow(/unknown setting "colour"/);
    expect(() => applySetting(sandbox, parseSetting('jira.x=1'))).toThrow('unknown service jira');
    expect(sandbox.settings()).toEqual(before);
  });
});
