/**
 * Typed entry for the benchmarks and other in-repo tools (not part of the public API): the pieces
 * they drive directly, so that they never reach into dist/ file by file.
 */
export { resolveConfig, type ResolvedConfig } from './config/config';
export { PublishRun, type PublishRunOptions } from './engine/run';
export { startSandbox, type RunningSandbox, type SandboxOptions } from './sandbox';
export { machinePacingDir } from './kit/pacing-peers';
export { TARGETS, signRequest } from './targets';
export type { TestRecord, RunSummary, TargetSummary } from './shared/model';
