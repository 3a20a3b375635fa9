/**
 * `check` reads playwright.config as the reporter does (found in the working directory, or named with --config)
 * and reports a service that answers from a new address, as a run does.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { baseEnv, exec, REPO, tempDir, testSandbox } from './harness';

const BIN = path.join(REPO, 'bin/playwright-tms-reporter.js');
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await testSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

const cli = (args: string[], env: Record<string, string | undefined>) => exec(process.execPath, [BIN, ...args], REPO, baseEnv(env), 60_000);

describe('check and playwright.config', () => {
  it('reads playwright.config as the reporter does: found in the working directory, or named with --config', async () => {
    const dir = tempDir('check-config');
    const file = path.join(dir, 'playwright.config.ts');
    const options = { zephyr: { cycleName: 'from the config', statusMap: { flaky: 'WIP' } }, cucumberstudio: false };
    fs.writeFileSync(
      file,
      `import { defineConfig } from '@playwright/test';\nexport default defineConfig({ reporter: [['dot'], ['playwright-tms-reporter', ${JSON.stringify(options)}]] });\n`,
    );
    for (const [cwd, args] of [
      [dir, ['check']],
      [REPO, ['check', '--config', file]],
    ] as const) {
      const r = await exec(process.execPath, [BIN, ...args], cwd, baseEnv(sandbox.env()), 60_000);
      expect(r.exitCode, r.output).toBe(0);
      expect(r.output).toMatch(/^settings: .*playwright\.config\.ts and the environment$/m);
      expect(r.output).toContain('cycle "from the config" does not exist yet and will be created');
      expect(r.output).toContain('flaky → WIP');
      // Switched off in the config: not checked, whatever credentials the environment holds.
      expect(r.output).toContain('! CucumberStudio: switched off');
      expect(r.output).not.toContain('✓ CucumberStudio');
    }
  });

  it('one statusMap typo is one failed check, naming the option set (timedOut follows failed, unset)', async () => {
    const dir = tempDir('check-typo');
    const options = { zephyr: { statusMap: { failed: 'FIAL' } }, cucumberstudio: false };
    fs.writeFileSync(
      path.join(dir, 'playwright.config.ts'),
      `import { defineConfig } from '@playwright/test';\nexport default defineConfig({ reporter: [['playwright-tms-reporter', ${JSON.stringify(options)}]] });\n`,
    );
    const r = await exec(process.execPath, [BIN, 'check'], dir, baseEnv(sandbox.env()), 60_000);
    expect(r.exitCode, r.output).not.toBe(0);
    expect(r.output.match(/✗.*/g), r.output).toEqual([expect.stringMatching(/zephyr\.statusMap\.failed: Zephyr has no status "FIAL"/)]);
    expect(r.output).toContain('1 check(s) failed');
  });

  it('reports a service that answers from a new address (a permanent redirect), as the run does', async () => {
    const moved = await testSandbox({ formerHost: { service: 'cucumberstudio' } });
    try {
      const env = Object.fromEntries(Object.entries(moved.env()).filter(([k]) => k.startsWith('CUCUMBERSTUDIO_')));
      expect(env.CUCUMBERSTUDIO_BASE_URL).toBe(moved.formerOrigin);
      const r = await cli(['check'], env);
      expect(r.exitCode, r.output).toBe(0);
      expect(r.output).toContain(
        `! CucumberStudio: ${moved.formerOrigin} has moved permanently to ${moved.origin}; configure ${moved.origin} as its base URL`,
      );
    } finally {
      await moved.close();
    }
  });
});
