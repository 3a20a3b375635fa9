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
  // --ignore-scripts: `prepack` would rebuild dist/ while other test files run Playwright with it (dist/ is built
  // here; the clean clone below shows that prepack builds it).
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

it('a clean clone packs what it needs: prepack builds dist/; the manifest has no install script, and names its repository and license', async () => {
  // The repository's files as a clone has them (tracked, or new and not ignored): no dist/, no node_modules.
  const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'tms-clone-'));
  try {
    const listed = await exec('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], REPO, baseEnv());
    expect(listed.exitCode, listed.output).toBe(0);
    for (const f of listed.output.split('\0').filter((f) => f && fs.existsSync(path.join(REPO, f)))) {
      fs.mkdirSync(path.dirname(path.join(clone, f)), { recursive: true });
      fs.copyFileSync(path.join(REPO, f), path.join(clone, f));
    }
    expect(fs.existsSync(path.join(clone, 'dist'))).toBe(false);
    // Its dev dependencies (the compiler), as `npm ci` would install them.
    fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(clone, 'node_modules'), 'dir');
    const out = path.join(clone, '.packed');
    fs.mkdirSync(out);
    const packed = await exec(
      npm,
      ['pack', '--silent', '--pack-destination', out],
      clone,
      baseEnv({ npm_config_cache: process.env.npm_config_cache }),
      240_000,
    );
    expect(packed.exitCode, packed.output).toBe(0);
    const tarball = path.join(
      out,
      fs.readdirSync(out).find((f) => f.endsWith('.tgz'))!,
    );
    const listing = await exec('tar', ['tzf', tarball], clone, baseEnv());
    const files = listing.output.split('\n').filter(Boolean);
    expect(files).toEqual(
      expect.arrayContaining(['package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/commands/cli.js', 'package/LICENSE']),
    );
    expect(files.some((f) => f.startsWith('package/src/') || f.startsWith('package/test/'))).toBe(false);
    const manifest = await exec('tar', ['xzOf', tarball, 'package/package.json'], clone, baseEnv());
    const pkg = JSON.parse(manifest.output) as { scripts?: Record<string, string>; repository?: { url?: string }; license?: string };
    // npm runs (and warns about) a dependency's install scripts; a consumer's install runs none of this package's.
    for (const s of ['prepare', 'preinstall', 'install', 'postinstall']) expect(pkg.scripts?.[s]).toBeUndefined();
    expect(pkg.license).toBe('MIT');
    expect(pkg.repository?.url).toMatch(/^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/);
    expect(fs.readFileSync(path.join(clone, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
  } finally {
    fs.rmSync(clone, { recursive: true, force: true });
  }
}, 300_000);

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
