import { parseArgs } from 'node:util';
import { REDIRECT_STATUSES, type RedirectStatus } from './former-host';
import { parseRateLimit } from './limits';
import { startSandbox, type RunningSandbox } from './index';

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
      'rate-limit': { type: 'string', multiple: true, default: [] },
      seed: { type: 'string', default: '42' },
      set: { type: 'string', multiple: true, default: [] },
      'former-host': { type: 'boolean', default: false },
      'former-host-status': { type: 'string', default: '301' },
    },
  });
  const num = (name: string, v: string | undefined, max = Infinity) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0 || n > max)
      throw new Error(`--${name} expects a number${max < Infinity ? ` between 0 and ${max}` : ''}, got "${v}"`);
    return n;
  };
  const faults = {
    latencyMs: num('latency', values.latency),
    faultRate: num('fault-rate', values['fault-rate'], 1),
    appliedFaultRate: num('applied-fault-rate', values['applied-fault-rate'], 1),
    resetRate: num('reset-rate', values['reset-rate'], 1),
    rateLimit: null as ReturnType<typeof parseRateLimit> | null,
  };
  // `N/SECONDS` for every service, or `SERVICE=N/SECONDS` for one (Zephyr ~30/60 per key, CucumberStudio 200/60 per
  // IP); `SERVICE=off` for none. Xray keeps its documented 300/300 (REST and GraphQL together) unless told otherwise.
  const limits: Record<string, ReturnType<typeof parseRateLimit> | null | undefined> = {
    zephyr: null,
    cucumberstudio: null,
    xray: undefined,
  };
  for (const text of values['rate-limit']) {
    const m = /^(zephyr|cucumberstudio|xray)=(.*)$/.exec(text);
    if (m) limits[m[1]] = m[2].trim() === 'off' ? null : parseRateLimit(m[2]);
    else limits.zephyr = limits.cucumberstudio = limits.xray = parseRateLimit(text);
  }
  const settings = values.set.map(parseSetting);
  if (!values['former-host'] && args.some((a) => a.startsWith('--former-host-status')))
    throw new Error('--former-host-status goes with --former-host (the second port it sets up)');
  const formerStatus = Number(values['former-host-status']) as RedirectStatus;
  if (!REDIRECT_STATUSES.includes(formerStatus)) {
    throw new Error(`--former-host-status expects one of ${REDIRECT_STATUSES.join(', ')}, got "${values['former-host-status']}"`);
  }
  const sandbox = await startSandbox({
    port: num('port', values.port, 65_535),
    host: values.host,
    seed: num('seed', values.seed),
    faults: {
      zephyr: { ...faults, rateLimit: limits.zephyr },
      cucumberstudio: { ...faults, rateLimit: limits.cucumberstudio },
      xray: limits.xray === undefined ? withoutRateLimit(faults) : { ...faults, rateLimit: limits.xray },
    },
    ...(values['former-host'] ? { formerHost: { service: 'cucumberstudio', status: formerStatus } } : {}),
  });
  try {
    for (const s of settings) applySetting(sandbox, s);
  } catch (error) {
    await sandbox.close();
    throw error;
  }
  const lines = Object.entries(sandbox.env()).map(([k, v]) => `export ${k}='${v}'`);
  process.stdout.write(`Sandbox for Zephyr Squad Cloud, CucumberStudio and Xray Cloud listening on ${sandbox.origin}\n`);
  if (sandbox.formerOrigin) {
    process.stdout.write(`CucumberStudio's former host on ${sandbox.formerOrigin} answers ${formerStatus} to ${sandbox.origin}\n`);
  }
  if (settings.length > 0) process.stdout.write(`Settings: ${JSON.stringify(sandbox.settings())}\n`);
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

/** The faults with no `rateLimit` key at all, so that the module's own default budget stays. */
function withoutRateLimit<T extends { rateLimit: unknown }>(faults: T): Omit<T, 'rateLimit'> {
  const { rateLimit: _none, ...rest } = faults;
  return rest;
}

export interface SettingFlag {
  service: string;
  key: string;
  value: string;
}

/** `--set <service>.<key>=<value>`, e.g. `zephyr.retryAfter=zero`. */
export function parseSetting(text: string): SettingFlag {
  const m = /^([a-z][a-z0-9-]*)\.([A-Za-z][A-Za-z0-9]*)=(.*)$/s.exec(text.trim());
  if (!m) throw new Error(`--set expects <service>.<setting>=<value> (e.g. zephyr.retryAfter=zero), got "${text}"`);
  return { service: m[1], key: m[2], value: m[3] };
}

/**
 * Applies one `--set`. The value is tried as JSON first (numbers, booleans, null, objects), then as the text
 * itself, so both `generationDelayMs=500` and `generationAnswer=423` (a string setting) mean what they say.
 */
export function applySetting(sandbox: RunningSandbox, s: SettingFlag): void {
  let parsed: unknown = s.value;
  try {
    parsed = JSON.parse(s.value);
  } catch {
    /* plain text */
  }
  try {
    sandbox.configure(s.service, { [s.key]: parsed });
  } catch (error) {
    if (parsed === s.value) throw error;
    try {
      sandbox.configure(s.service, { [s.key]: s.value });
    } catch {
      throw error;
    }
  }
}
