import { configDirOf, resolveConfig } from '../config/config';
import { createHttp } from '../http/client';
import { redact } from '../http/errors';
import type { TargetDefinition } from '../kit/target';
import { labelled } from '../shared/output';
import { TARGETS } from '../targets';

/**
 * `npx playwright-tms-reporter check`: read-only verification of what the config and env configure, one line
 * per check, exit code 0 when everything is usable. Meant as a CI step before the tests.
 */
/** How long `check` waits for one answer. */
const CHECK_TIMEOUT_MS = 10_000;

export async function check(
  env: NodeJS.ProcessEnv,
  write: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
  definitions: readonly TargetDefinition[] = TARGETS,
  /** The options of each instance of the reporter in playwright.config (none there: one instance, `{}`). */
  instances: ReadonlyArray<Record<string, unknown>> = [{}],
  /** Where they came from, said first. */
  source?: string,
): Promise<number> {
  if (source) write(`settings: ${source}`);
  let failed = 0;
  for (const [i, options] of instances.entries()) {
    if (instances.length > 1) write(`reporter ${i + 1} of ${instances.length}:`);
    failed += await checkOne(env, write, definitions, options);
  }
  write(failed ? `${failed} check(s) failed` : 'all checks passed');
  return failed ? 1 : 0;
}

/** The checks of one instance of the reporter; returns how many failed. */
async function checkOne(
  env: NodeJS.ProcessEnv,
  write: (line: string) => void,
  definitions: readonly TargetDefinition[],
  options: Record<string, unknown>,
): Promise<number> {
  const config = resolveConfig({ definitions, options, env, rootDir: configDirOf(options) });
  const say = (mark: '✓' | '✗' | '!', text: string) => write(redact(`${mark} ${text}`, config.secrets));
  let failed = 0;
  for (const p of config.problems) {
    say('✗', p);
    failed++;
  }
  for (const d of config.off) say('!', `${d.label}: switched off (${d.optionsKey}: false or ${d.envPrefix}_ENABLED); not checked`);
  if (!config.targets.length) {
    if (!config.invalid.length) {
      const rest = definitions.filter((d) => !config.off.includes(d));
      say('✗', rest.length ? `no target configured: set ${rest.map((d) => d.enableHint).join(' or ')}` : 'every target is switched off');
      failed++;
    }
    return failed;
  }
  // A check is a fail-fast CI step: a short timeout, one retry, the services side by side (a host that
  // takes connections and never answers cost 3 minutes with the publishing timeout and retries).
  const http = createHttp({
    timeoutMs: CHECK_TIMEOUT_MS,
    // Followed, as the run follows it; said, as the run says it (a moved service may stop redirecting one day).
    onRedirect: (e) => {
      if (e.permanent)
        say(
          '!',
          `${e.service}: ${e.from} has moved permanently to ${e.to}; configure ${http.rewrite(e.from).replace(/\/$/, '')} as its base URL`,
        );
    },
  });
  try {
    const results = await Promise.all(
      config.targets.map(({ definition, config: c }) =>
        definition.create(c, { send: http.send, secrets: config.secrets, lane: { retries: 1 } }).check(),
      ),
    );
    config.targets.forEach(({ definition }, i) => {
      for (const line of results[i]) {
        say(line.ok ? '✓' : '✗', labelled(definition.label, line.text));
        if (!line.ok) failed++;
      }
    });
  } finally {
    await http.close();
  }
  return failed;
}
