import { defineConfig } from 'vitest/config';

// Explicit include: without it vitest would also collect the Playwright specs of example-project/.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Generous: every Playwright run is bounded by the harness (killed with its tree after 180 s), so a busy machine
    // makes a test slower, not failed.
    testTimeout: 300_000,
    hookTimeout: 60_000,
    // Integration tests spawn real `playwright test` processes, and many of them wait (a service held, an outage's
    // bound, a global timeout): more forks than cores fill those waits (full suite, quiet: 446 s with 2 forks,
    // 372 s with 3, same 712 s of CPU; with CommonJS specs, 310 s with 3 and 242 s with 4). A fork runs file after file without a fresh start (isolate: false): a fresh
    // fork per file re-imported the sandbox and the reporter's sources in each of ~120 files (unit tests alone:
    // 171 s -> 37 s, 66 -> 20 s of CPU). No test file mocks modules or leaves globals changed; test/setup.ts still
    // runs per file. minForks = maxForks: with fewer, tinypool ends an idle fork on a timer, and two full runs
    // (3 forks, 1 minimum) ended with "Unhandled Rejection: Terminating worker thread" after every test had passed.
    poolOptions: { forks: { maxForks: 4, minForks: 4, isolate: false } },
    pool: 'forks',
  },
});
