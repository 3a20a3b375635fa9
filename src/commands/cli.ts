import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { configDirOf, FORMER_OUTBOX_DIR, resolveConfig } from '../config/config';
import { Outbox } from '../engine/outbox';
import { createPrinter, type Printer } from '../shared/output';
import { StopSignals } from '../shared/stop-signals';
import { replay } from './replay';
import { check } from './check';
import { findPlaywrightConfig, readReporterOptions } from '../playwright/config-file';
import { redact } from '../http/errors';
import { createContainer } from './container-command';
import { TARGETS } from '../targets';

const CREATE_LINES = TARGETS.map(
  (d) =>
    `  ${`${d.command} create [--name N]`.padEnd(28)} find or create the ${d.label} ${d.containerKind}; prints its ${d.containerSetting?.what ?? 'id'}${d.containerSetting ? ` (for ${d.containerSetting.env})` : ''}`,
);

/** Each command's usage lines (`<command> --help` prints its own). */
const COMMAND_USAGE: Record<string, string> = {
  replay: `  replay [outboxDir] [--config FILE]
                       send what earlier runs could not send (idempotent), with the settings of the run (its journal),
                       else of playwright.config (found as Playwright finds it, or FILE); PW_TMS_DRY_RUN=1 prints it instead`,
  check: `  check [--config FILE]
                       verify the settings of playwright.config (or FILE) and env against the services (read-only);
                       exit 0 when all good`,
  ...Object.fromEntries(TARGETS.map((d, i) => [d.command, CREATE_LINES[i]])),
  sandbox: `  sandbox [--port N] [--latency MS] [--fault-rate R] [--applied-fault-rate R] [--rate-limit [SERVICE=]N/SECONDS]
          [--set SERVICE.SETTING=VALUE ...] [--former-host [--former-host-status 301|302|307|308]]
                       local stand-in for the services (README: "Commands")`,
};

const USAGE = `Usage: playwright-tms-reporter <command>   (--version prints the version)

Commands:
${Object.values(COMMAND_USAGE).join('\n')}
`;

/** Entry of the `playwright-tms-reporter` bin. Returns the exit code; never prints a stack trace. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [command, ...rest] = argv;
  if (command && COMMAND_USAGE[command] && (rest.includes('--help') || rest.includes('-h'))) {
    process.stdout.write(`Usage: playwright-tms-reporter\n${COMMAND_USAGE[command]}\n`);
    return 0;
  }
  try {
    switch (command) {
      case 'replay':
        return await replayCommand(rest, env);
      case 'check': {
        // Only --config: a stray argument is named (with the usage), not ignored.
        const { values } = parseArgs({ args: rest, options: { config: { type: 'string', short: 'c' } } });
        const settings = await settingsOf('check', values.config, env);
        if ('error' in settings) return 1;
        return await check(env, undefined, TARGETS, settings.instances, settings.source);
      }
      case 'sandbox': {
        // Loaded when asked for: the sandbox (every service, GraphQL) is ~200 modules that replay and check never use.
        const { sandboxCommand } = await import('../sandbox/command.js');
        return await sandboxCommand(rest);
      }
      case '--version':
      case '-v':
        // The package's own version (dist/commands/cli.js sits two folders below package.json).
        process.stdout.write(`${JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')).version}\n`);
        return 0;
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        process.stdout.write(USAGE);
        return command ? 0 : 1;
      default:
        if (TARGETS.some((d) => d.command === command)) return await containerCommand(command, rest, env);
        process.stderr.write(`unknown command "${command}"\n${USAGE}`);
        return 1;
    }
  } catch (error) {
    const code = (error as { code?: string })?.code ?? '';
    // Node's own words for a bad flag end with advice about '--' that does not apply here: the usage does.
    if (code.startsWith('ERR_PARSE_ARGS') && command) {
      const said = ((error as Error).message.split('. ')[0] ?? '').replace(/\.$/, '');
      process.stderr.write(`[tms-reporter] ${command}: ${said}\nUsage: playwright-tms-reporter\n${COMMAND_USAGE[command] ?? ''}\n`);
      return 1;
    }
    process.stderr.write(`[tms-reporter] ${(error as Error)?.message ?? String(error)}\n`);
    return 1;
  }
}

async function replayCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { config: { type: 'string', short: 'c' } } });
  if (positionals.length > 1) throw new Error(`replay takes one outbox folder, got ${positionals.length}: ${positionals.join(' ')}`);
  const settings = await settingsOf('replay', values.config, env);
  if ('error' in settings) return 1;
  const folder = positionals[0] ? path.resolve(positionals[0]) : undefined;
  // Each instance of the reporter in the config keeps its own outbox, replayed with its own options.
  const instances = settings.instances.map((options) => ({
    options,
    config: resolveConfig({ definitions: TARGETS, options, env, rootDir: configDirOf(options) }),
  }));
  const printer = createPrinter(
    [...new Set(instances.flatMap((i) => i.config.secrets))],
    instances.some((i) => i.config.debug),
  );
  if (folder) {
    const instance = instances.find((i) => i.config.outboxDir === folder) ?? (instances.length === 1 ? instances[0] : undefined);
    if (!instance) {
      printer.error(
        `replay: ${settings.source} lists the reporter ${instances.length} times and none keeps its outbox in ${folder}; name the config of that run with --config FILE`,
      );
      return 1;
    }
    const result = await stoppable(printer, (stop) =>
      replay(folder, instance.options, env, printer, undefined, TARGETS, undefined, settings.source, stop),
    );
    // A folder named on the command line that is not there is a typo, not "nothing to replay".
    return result.unsent > 0 || result.missing ? 1 : 0;
  }
  let unsent = 0;
  await stoppable(printer, async (stop) => {
    for (const { options, config } of instances) {
      // The configured folder, and the one earlier versions used while it still holds journals.
      const former = path.resolve(configDirOf(options) ?? '.', FORMER_OUTBOX_DIR);
      const explicit = !!env.PW_TMS_OUTBOX_DIR || 'outboxDir' in options;
      const dirs = [config.outboxDir, ...(!explicit && Outbox.list(former).length ? [former] : [])];
      for (const dir of dirs)
        unsent += (await replay(dir, options, env, printer, undefined, TARGETS, undefined, settings.source, stop)).unsent;
    }
  });
  return unsent > 0 ? 1 : 0;
}

/**
 * Ctrl+C / SIGTERM during a replay: the sending stops, the journal's lock is let go and the summary says what stays
 * in the outbox (a replay killed at once said nothing and left its lock for the next one to take over).
 */
async function stoppable<T>(printer: Printer, work: (stop: AbortSignal) => Promise<T>): Promise<T> {
  const signals = new StopSignals((signal) =>
    printer.info(`${signal}: stopping the replay; what is not sent yet stays in the outbox (${signal} again to quit at once)`),
  );
  signals.listen();
  try {
    return await work(signals.signal);
  } finally {
    signals.dispose();
  }
}

/**
 * The reporter options `replay` and `check` use: those of the config named by --config, else of the
 * playwright.config Playwright finds in the working directory, else none (the environment's settings).
 */
async function settingsOf(
  command: string,
  named: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<{ instances: Array<Record<string, unknown>>; source: string } | { error: string }> {
  const file = named ? path.resolve(named) : findPlaywrightConfig(process.cwd());
  if (!file) return { instances: [{}], source: 'the environment (no playwright.config here; --config FILE names one)' };
  const read = await readReporterOptions(file, env);
  const shown = path.relative(process.cwd(), file) || file;
  if ('error' in read) {
    const redacted = redact(read.error, resolveConfig({ definitions: TARGETS, options: {}, env }).secrets);
    process.stderr.write(`[tms-reporter] ${command}: ${redacted}; fix it, or name another with --config FILE\n`);
    return { error: read.error };
  }
  if (!read.instances.length) {
    process.stderr.write(`[tms-reporter] ${command}: ${shown} does not list playwright-tms-reporter; using the environment's settings\n`);
    return { instances: [{}], source: 'the environment' };
  }
  return { instances: read.instances, source: `${shown} and the environment` };
}

async function containerCommand(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { name: { type: 'string' } } });
  if (positionals[0] !== 'create') throw new Error(`usage: playwright-tms-reporter ${command} create [--name NAME]`);
  // `cycle create Nightly-42` would make a cycle under the default name and hand its id to every shard.
  if (positionals.length > 1)
    throw new Error(`${command} create: unexpected "${positionals.slice(1).join(' ')}" (a name goes with --name NAME)`);
  return createContainer(
    TARGETS.find((d) => d.command === command)!,
    values.name,
    env,
  );
}
