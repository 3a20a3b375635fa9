import type { LaneOptions } from '../kit/lane';

/**
 * A test knob, not an option (users never set it, the README does not list it): the integration suite's runs
 * against a service that answers 5xx for good give up after the same retries, without the seconds of backoff
 * between them (DEFAULT_BACKOFF, up to 8 s a wait). In-process tests pass `deps.lane` themselves; a Playwright
 * child process can only be told through its env.
 */
export const TEST_BACKOFF_ENV = 'PW_TMS_TEST_BACKOFF_MS';

/** The lane knob for PublishRun's deps: every backoff `ms` long; none when the variable is unset. */
export function testBackoff(env: NodeJS.ProcessEnv): { lane: Partial<LaneOptions> } | undefined {
  const ms = Number(env[TEST_BACKOFF_ENV]);
  return ms > 0 ? { lane: { backoff: { baseMs: ms, maxMs: ms, factor: 1 } } } : undefined;
}
