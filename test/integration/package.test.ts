import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { baseEnv, exec, REPO, testSandbox, zephyrStatuses } from './harness';

// The package as users get it: `npm pack`, installed into a fresh project outside the repository,
// loaded by name from an ESM and a CommonJS config, and its bin run from there.
let sandbox: RunningSandbox;
let project: string;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const pwVersion = (
  JSON.parse(fs.readFileSync(path.join(REPO, 'node_modules/@playwright/test/package.json'), 'utf8')) as { version: string }
).version;

beforeAll(async () => {
  sandbox = await testSandbox();
  project = fs.mkdtempSync(path.join(os.tmpdir(), 'tms-pack-'));
  const env = baseEnv({ npm_config_cache: process.env.npm_config_cache });
  // --ignore-scripts: `prepare` would touch node_modules while other test files run Playwright.
  const packed = await exec(npm, ['pack', '--silent', '--ignore-scripts', '--pack-destination', project], REPO, env);
  expect(packed.exitCode, packed.output).toBe(0);
  const tarball = fs.readdirSync(project).find((f) => f.endsWith('.tgz'))!;
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  const installed = await exec(
    npm,
    ['install', '--no-audit', '--no-fund', '--prefer-offline', `./${tarball}`, `@playwright/test@${pwVersion}`],
    project,
    env,
    240_000,
  );
  expect(installed.exitCode, installed.output).toBe(0);
  fs.mkdirSync(path.join(project, 'tests'));
  fs.writeFileSync(
    path.join(project, 'tests/a.spec.ts'),
    `import { test } from '@playwright/test';\ntest('a', { tag: '@PROJ-31' }, () => {});\n`,
  );
}, 300_000);

afterAll(async () => {
  await sandbox?.close();
  if (project) fs.rmSync(project, { recursive: true, force: true });
});

it('ships only what it needs', () => {
  const root = path.join(project, 'node_modules/playwright-tms-reporter');
  expect(fs.existsSync(path.join(root, 'dist/index.js'))).toBe(true);
  expect(fs.existsSync(path.join(root, 'dist/index.d.ts'))).toBe(true);
  expect(fs.existsSync(path.join(root, 'src'))).toBe(false);
  expect(fs.existsSync(path.join(root, 'test'))).toBe(false);
});

it.each([
  ['esm', 'mjs', 'export default'],
  ['cjs', 'cjs', 'module.exports ='],
])('loads by package name from a %s config and publishes', async (kind, ext, exportKw) => {
  const name = `packaged ${kind}`;
  fs.writeFileSync(
    path.join(project, `playwright.config.${ext}`),
    `${exportKw} { testDir: './tests', reporter: [['dot'], ['playwright-tms-reporter', { zephyr: { cycleName: ${JSON.stringify(name)} } }]] };\n`,
  );
  const cli = path.join(project, 'node_modules/@playwright/test/cli.js');
  const r = await exec(process.execPath, [cli, 'test', '-c', `playwright.config.${ext}`], project, baseEnv(sandbox.env()));
  expect(r.exitCode, r.output).toBe(0);
  expect(zephyrStatuses(sandbox, name)).toEqual({ 'PROJ-31': 1 });
});

it('the bin works from the installed package', async () => {
  const r = await exec(path.join(project, 'node_modules/.bin/playwright-tms-reporter'), ['check'], project, baseEnv(sandbox.env()));
  expect(r.exitCode, r.output).toBe(0);
  expect(r.output).toContain('all checks passed');
});
