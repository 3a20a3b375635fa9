// Optional: a real browser test. Runs only where Debian's chromium is installed (`apt-get install -y chromium`);
// otherwise it is skipped before any browser launch, and PROJ-12 stays UNEXECUTED in Zephyr.
import * as fs from 'node:fs';
import { test, expect } from '@playwright/test';

const CHROMIUM = '/usr/bin/chromium';

test.skip(!fs.existsSync(CHROMIUM), 'no chromium: install Debian chromium to run it');
test.use({ launchOptions: { executablePath: CHROMIUM, args: ['--no-sandbox'] } });

test('renders a page in chromium', { tag: '@PROJ-12' }, async ({ page }) => {
  await page.setContent('<h1>Hello TMS</h1>');
  await expect(page.locator('h1')).toHaveText('Hello TMS');
});
