import { resolveConfig } from './config';
import { createHttp } from './http/client';
import { redact } from './http/errors';
import { createTargets } from './targets';

/**
 * `npx playwright-tms-reporter check`: read-only verification of what env configures, one line per
 * check, exit code 0 when everything is usable. Meant as a CI step before the tests.
 */
export async function check(env: NodeJS.ProcessEnv, write: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<number> {
  const config = resolveConfig({}, env);
  const say = (ok: boolean, text: string) => write(redact(`${ok ? '✓' : '✗'} ${text}`, config.secrets));
  let failed = 0;
  for (const p of config.problems) {
    say(false, p);
    failed++;
  }
  if (!config.zephyr && !config.cucumberstudio) {
    if (!config.invalid.length) say(false, 'no target configured: set ZEPHYR_ACCESS_KEY/ZEPHYR_SECRET_KEY or CUCUMBERSTUDIO_UID/CUCUMBERSTUDIO_ACCESS_TOKEN');
    return 1;
  }
  const http = createHttp();
  try {
    // Few retries: a check should answer quickly, and it never writes.
    const targets = createTargets(config, { send: http.send, lane: { retries: 2 } });
    for (const t of targets) {
      for (const line of await t.check()) {
        say(line.ok, `${t.label}: ${line.text}`);
        if (!line.ok) failed++;
      }
    }
  } finally {
    await http.close();
  }
  write(failed ? `${failed} check(s) failed` : 'all checks passed');
  return failed ? 1 : 0;
}
