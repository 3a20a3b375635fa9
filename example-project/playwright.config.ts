/**
 * Example Playwright project that publishes its results with playwright-tms-reporter.
 *
 * - testDir: './tests'    plain `test()` + `expect` specs; no browser needed (one optional browser test).
 * - retries: 1            lets the flaky test pass on its retry; the reporter still sends ONE result per test.
 * - reporter:
 *     ['list']                       the usual console output.
 *     ['playwright-tms-reporter', …] the reporter, by package name, exactly as in your own project.
 *                                    Inside this repository `npm install` links the package into
 *                                    node_modules (scripts/link-self.js); run `npm run build` first.
 *       zephyr.cycleName: 'Demo'          reuse the Zephyr Squad cycle named "Demo", or create it.
 *       cucumberstudio.testRunName: 'Demo' reuse the active CucumberStudio test run "Demo", or create it.
 *     Credentials and ids come from env vars (ZEPHYR_ACCESS_KEY, ZEPHYR_SECRET_KEY, ZEPHYR_ACCOUNT_ID,
 *     ZEPHYR_PROJECT_ID, ZEPHYR_BASE_URL; CUCUMBERSTUDIO_UID, CUCUMBERSTUDIO_ACCESS_TOKEN,
 *     CUCUMBERSTUDIO_CLIENT, CUCUMBERSTUDIO_PROJECT_ID, CUCUMBERSTUDIO_BASE_URL). `npm run demo` sets them
 *     from the local sandbox. With none set the reporter prints one line and does nothing.
 * - outputDir: Playwright's default (test-results/ next to this file).
 */
import { defineConfig } from '@playwright/test';
import type { TmsReporterOptions } from 'playwright-tms-reporter';

const tms: TmsReporterOptions = {
  zephyr: { cycleName: 'Demo' },
  cucumberstudio: { testRunName: 'Demo' },
};

export default defineConfig({
  testDir: './tests',
  retries: 1,
  reporter: [['list'], ['playwright-tms-reporter', tms]],
});
