import { startSandboxCore, type RunningSandbox, type SandboxCoreOptions } from './server';
import { createZephyrModule, type ZephyrSandboxOptions } from './zephyr';
import { createCucumberStudioModule, type CucumberStudioSandboxOptions } from './cucumberstudio';
import { createXrayModule, type XraySandboxOptions } from './xray';

export type { RunningSandbox, ServiceStats, RequestLogEntry } from './server';
export type { ServiceFaults, ServiceName } from './types';
export type { FormerHostOptions, FormerHostStats, RedirectStatus } from './former-host';
export type { ZephyrSandboxOptions } from './zephyr';
export type { CucumberStudioSandboxOptions } from './cucumberstudio';
export type { XraySandboxOptions, XrayStateView } from './xray';
export { parseRateLimit } from './limits';

export interface SandboxOptions extends SandboxCoreOptions {
  zephyr?: ZephyrSandboxOptions;
  cucumberstudio?: CucumberStudioSandboxOptions;
  xray?: XraySandboxOptions;
}

/**
 * Starts a local stand-in for Zephyr Squad Cloud, CucumberStudio and Xray Cloud (under `/xray`) on one port (0 = ephemeral).
 * Used by `npx playwright-tms-reporter sandbox`, the demo, the tests and the benchmarks.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const modules = [
    createZephyrModule(options.zephyr ?? {}),
    createCucumberStudioModule(options.cucumberstudio ?? {}),
    createXrayModule(options.xray ?? {}),
  ];
  return startSandboxCore(modules, options);
}
