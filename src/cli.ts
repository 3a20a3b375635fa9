import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { FORMER_OUTBOX_DIR, resolveConfig } from './config';
import { Outbox } from './engine/outbox';
import { createPrinter } from './output';
import { replay } from './replay';
import { check } from './check';
import { createContainer } from './container-command';
import { sandboxCommand } from './sandbox/command';
import { TARGETS } from './targets';

const CREATE_LINES = TARGETS.map(
  (d) =>
    `  ${`${d.command} create [--name N]`.padEnd(28)} find or create the ${d.label} ${d.containerKind}; prints its id (for ${d.envPrefix}_…_ID)`,
);

/** Each command's usage lines (`<command> --help` prints its own). */
const COMMAND_USAGE: Record<string, string> = {
  replay: `  replay [outboxDir]   send what earlier runs could not send (idempotent); PW_TMS_DRY_RUN=1 prints it instead`,
  check: `  check                verify credentials and ids from env (read-only); exit 0 when all good`,
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
      case 'check':
        // No flags and no arguments: a stray one is named (with the usage), not ignored.
        parseArgs({ args: rest, options: {} });
        return await check(env);
      case 'sandbox':
        return await sandboxCommand(rest);
      case '--version':
      case '-v':
        // The package's own version (dist/cli.js sits one folder below package.json).
        process.stdout.write(`${JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')).version}\n`);
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
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length > 1) throw new Error(`replay takes one outbox folder, got ${positionals.length}: ${positionals.join(' ')}`);
  const config = resolveConfig({ definitions: TARGETS, options: {}, env });
  const printer = createPrinter(config.secrets, config.debug);
  if (positionals[0] || env.PW_TMS_OUTBOX_DIR) {
    const result = await replay(positionals[0] ? path.resolve(positionals[0]) : config.outboxDir, {}, env, printer);
    // A folder named on the command line that is not there is a typo, not "nothing to replay".
    return result.unsent > 0 || (result.missing && positionals[0]) ? 1 : 0;
  }
  // The default folder, and the one earlier versions used while it still holds journals.
  const former = path.resolve(FORMER_OUTBOX_DIR);
  const dirs = [config.outboxDir, ...(Outbox.list(former).length ? [former] : [])];
  let unsent = 0;
  for (const dir of dirs) unsent += (await replay(dir, {}, env, printer)).unsent;
  return unsent > 0 ? 1 : 0;
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
