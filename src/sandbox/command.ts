import { parseArgs } from 'node:util';
import { parseRateLimit } from './limits';
import { startSandbox } from './index';

/** `playwright-tms-reporter sandbox [...]`: runs the sandbox until SIGINT/SIGTERM, printing the env that points the reporter at it. */
export async function sandboxCommand(args: string[]): Promise<number> {
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
    if (!Number.isFinite(n) || n < 0 || n > max)
      throw new Error(`--${name} expects a number${max === 1 ? ' between 0 and 1' : ''}, got "${v}"`);
    return n;
  };
  const faults = {
    latencyMs: num('latency', values.latency),
    faultRate: num('fault-rate', values['fault-rate'], 1),
    appliedFaultRate: num('applied-fault-rate', values['applied-fault-rate'], 1),
    resetRate: num('reset-rate', values['reset-rate'], 1),
    rateLimit: values['rate-limit'] ? parseRateLimit(values['rate-limit']) : null,
  };
  const sandbox = await startSandbox({
    port: num('port', values.port),
    host: values.host,
    seed: num('seed', values.seed),
    faults: { zephyr: faults, cucumberstudio: faults },
  });
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
