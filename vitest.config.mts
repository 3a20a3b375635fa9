import { defineConfig } from 'vitest/config';

// Explicit include: without it vitest would also collect the Playwright specs of example-project/.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Integration tests spawn real `playwright test` processes; 2 cores do not gain from more forks.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    pool: 'forks',
  },
});
