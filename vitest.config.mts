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
    // Integration tests spawn real `playwright test` processes; 2 cores do not gain from more forks.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    pool: 'forks',
  },
});
