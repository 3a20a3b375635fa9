import { parseArgs } from 'node:util';
import * as path from 'node:path';
import { resolveConfig } from './config';
import { createPrinter } from './output';
import { replay } from './replay';
import { check } from './check';
import { createContainer } from './container-command';
import { parseRateLimit, startSandbox } from './sandbox';

const USAGE = `Usage: playwright-tms-reporter <command>

Commands:
  replay [outboxDir]   send what earlier runs could not send (idempotent)
  check                verify credentials and ids from env (read-only); exit 0 when all good
  cycle create [--name N]      find or create the Zephyr cycle; prints its id (for ZEPHYR_CYCLE_ID)
  test-run create [--name N]   find or create the CucumberStudio test run; prints its id
  sandbox [--port N] [--latency MS] [--fault-rate R] [--applied-fault-rate R] [--rate-limit N/SECONDS]
                       local stand-in for Zephyr Squad Cloud and CucumberStudio
`;

/** Entry of the `playwright-tms-reporter` bin. Returns the exit code; never prints a stack trace. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'replay':
        return await replayCommand(rest, env);
      case 'check':
        return await check(env);
      case 'sandbox':
        return await sandboxCommand(rest);
      case 'cycle':
      case 'test-run':
        return await containerCommand(command, rest, env);
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        process.stdout.write(USAGE);
        return command ? 0 : 1;
      default:
        process.stderr.write(`unknown command "${command}"\n${USAGE}`);
        return 1;
    }
  } catch (error) {
    process.stderr.write(`[tms-reporter] ${(error as Error)?.message ?? String(error)}\n`);
    return 1;
  }
}

async function replayCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const config = resolveConfig({}, env);
  const printer = createPrinter(config.secrets, config.debug);
  const dir = positionals[0] ? path.resolve(positionals[0]) : config.outboxDir;
  const result = await replay(dir, {}, env, printer);
  return result.unsent > 0 ? 1 : 0;
}

async function containerCommand(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { name: { type: 'string' } } });
  if (positionals[0] !== 'create') throw new Error(`usage: playwright-tms-reporter ${command} create [--name NAME]`);
  return createContainer(command === 'cycle' ? 'zephyr' : 'cucumberstudio', values.name, env);
}

async function sandboxCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string', default: '4010' },
      host: { type: 'string', default: '127.0.0.1' },
      latency: { type: 'string', default: '0' },
      'fault-rate': { type: 'string', default: '0' },
      'applied-fault-rate': { type: 'string', default: '0' },
      'reset-rate': { type: 'string', default: '0' },
      'rate-limit': { type: 'string' },
      seed: { type: 'string', default: '42' },
    },
  });
  const num = (name: string, v: string | undefined, max = Infinity) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0 || n > max) throw new Error(`--${name} expects a number${max === 1 ? ' between 0 and 1' : ''}, got "${v}"`);
    return n;
  };
  const faults = {
    latencyMs: num('latency', values.latency),
    faultRate: num('fault-rate', values['fault-rate'], 1),
    appliedFaultRate: num('applied-fault-rate', values['applied-fault-rate'], 1),
    resetRate: num('reset-rate', values['reset-rate'], 1),
    rateLimit: values['rate-limit'] ? parseRateLimit(values['rate-limit']) : null,
  };
  const sandbox = await startSandbox({ port: num('port', values.port), host: values.host, seed: num('seed', values.seed), faults: { zephyr: faults, cucumberstudio: faults } });
  const lines = Object.entries(sandbox.env()).map(([k, v]) => `export ${k}='${v}'`);
  process.stdout.write(`Sandbox for Zephyr Squad Cloud and CucumberStudio listening on ${sandbox.origin}\n`);
  process.stdout.write(`State: ${sandbox.origin}/__sandbox/state   Stats: ${sandbox.origin}/__sandbox/stats\n\n`);
  process.stdout.write(`# point the reporter at it:\n${lines.join('\n')}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await sandbox.close();
  return 0;
}
