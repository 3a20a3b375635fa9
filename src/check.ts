import { resolveConfig } from './config';
import { createHttp } from './http/client';
import { redact } from './http/errors';
import type { TargetDefinition } from './kit/target';
import { labelled } from './output';
import { TARGETS } from './targets';

/**
 * `npx playwright-tms-reporter check`: read-only verification of what env configures, one line per
 * check, exit code 0 when everything is usable. Meant as a CI step before the tests.
 */
/** How long `check` waits for one answer. */
const CHECK_TIMEOUT_MS = 10_000;

export async function check(
  env: NodeJS.ProcessEnv,
  write: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
  definitions: readonly TargetDefinition[] = TARGETS,
): Promise<number> {
  const config = resolveConfig({ definitions, options: {}, env });
  const say = (ok: boolean, text: string) => write(redact(`${ok ? '✓' : '✗'} ${text}`, config.secrets));
  let failed = 0;
  for (const p of config.problems) {
    say(false, p);
    failed++;
  }
  if (!config.targets.length) {
    if (!config.invalid.length) say(false, `no target configured: set ${definitions.map((d) => d.enableHint).join(' or ')}`);
    else write(`${failed} check(s) failed`);
    return 1;
  }
  // A check is a fail-fast CI step: a short timeout, one retry, the services side by side (a host that
  // takes connections and never answers cost 3 minutes with the publishing timeout and retries).
  const http = createHttp({ timeoutMs: CHECK_TIMEOUT_MS });
  try {
    const results = await Promise.all(
      config.targets.map(({ definition, config: c }) =>
        definition.create(c, { send: http.send, secrets: config.secrets, lane: { retries: 1 } }).check(),
      ),
    );
    config.targets.forEach(({ definition }, i) => {
      for (const line of results[i]) {
        say(line.ok, labelled(definition.label, line.text));
        if (!line.ok) failed++;
      }
    });
  } finally {
    await http.close();
  }
  write(failed ? `${failed} check(s) failed` : 'all checks passed');
  return failed ? 1 : 0;
}
