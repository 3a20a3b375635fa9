import type { ServiceModule } from '../types';
/** Placeholder: replaced by the real CucumberStudio stand-in. */
export interface CucumberStudioSandboxOptions {
  generationDelayMs?: number;
}
export function createCucumberStudioModule(_options: CucumberStudioSandboxOptions): ServiceModule {
  throw new Error('cucumberstudio sandbox not implemented yet');
}
