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

/**
 * A test knob like TEST_BACKOFF_ENV: the end of the run prints its first progress line after this many ms (and one
 * every this many ms after), not 10 s in. A test that must act while the end is sending (a Ctrl+C during it)
 * waits for that line, not for the product's cadence.
 */
export const TEST_PROGRESS_ENV = 'PW_TMS_TEST_PROGRESS_MS';

/**
 * A test knob like TEST_BACKOFF_ENV: a result streamed while the tests run waits at most this many ms for others
 * to share its batch (Zephyr's window is 3 s). Tests that watch a result arrive mid-run wait for it, not the window.
 */
export const TEST_BATCH_WAIT_ENV = 'PW_TMS_TEST_BATCH_WAIT_MS';

/** PublishRun's batching window: `ms` for every target; none when the variable is unset. */
export function testBatchWait(env: NodeJS.ProcessEnv): { batchWaitMs: number } | undefined {
  const ms = Number(env[TEST_BATCH_WAIT_ENV]);
  return ms > 0 ? { batchWaitMs: ms } : undefined;
}

/** PublishRun's progress cadence: every `ms`, with no quiet start; none when the variable is unset. */
export function testProgress(env: NodeJS.ProcessEnv): { progressEveryMs: number; quietEndMs: number } | undefined {
  const ms = Number(env[TEST_PROGRESS_ENV]);
  return ms > 0 ? { progressEveryMs: ms, quietEndMs: 0 } : undefined;
}

/**
 * A test knob like TEST_BACKOFF_ENV: a service that gives no answer (the sandbox `down`) is tried again after
 * this many ms instead of UNREACHABLE's 1 s and 3 s: still its 3 tries, then given up for the run with the rest
 * in the outbox. Tests of something else than that bound (a journal kept, a replay) do not wait it out; the bound
 * itself is tested without the knob (unreachable.test.ts, retry-loop.test.ts).
 */
export const TEST_UNREACHABLE_ENV = 'PW_TMS_TEST_UNREACHABLE_MS';

/** PublishRun's waits between unreachable tries: `ms` each; none when the variable is unset. */
export function testUnreachable(env: NodeJS.ProcessEnv): { unreachableDelaysMs: number[] } | undefined {
  const ms = Number(env[TEST_UNREACHABLE_ENV]);
  return ms > 0 ? { unreachableDelaysMs: [ms] } : undefined;
}

/** Every test knob set in `env`, as PublishRun's options (none when no variable is set). */
export function testKnobs(env: NodeJS.ProcessEnv) {
  return { deps: testBackoff(env), ...testProgress(env), ...testBatchWait(env), ...testUnreachable(env) };
}
