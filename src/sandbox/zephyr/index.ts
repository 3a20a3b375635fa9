import type { ServiceModule } from '../types';
/** Placeholder: replaced by the real Zephyr stand-in. */
export interface ZephyrSandboxOptions {
  contextPath?: string;
}
export function createZephyrModule(_options: ZephyrSandboxOptions): ServiceModule {
  throw new Error('zephyr sandbox not implemented yet');
}
