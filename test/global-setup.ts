import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** This run's own scratch folder under `.tmp/` (test/integration/harness.ts makes its folders there). */
    scratchDir: string;
  }
}

/**
 * Once for the whole run: a scratch folder of its own, removed at its end with whatever is left in it. Each test
 * file already removes the folders it made (test/setup.ts); this catches what a killed child process wrote after
 * its file ended. Only this run's folder goes: a bench or another run using `.tmp/` at the same time keeps its own.
 */
export default function setup(project: TestProject): () => void {
  const repo = path.resolve(__dirname, '..');
  const scratch = path.join(repo, '.tmp', `test-run-${process.pid}-${Date.now()}`);
  fs.mkdirSync(scratch, { recursive: true });
  project.provide('scratchDir', scratch);
  return () => {
    fs.rmSync(scratch, { recursive: true, force: true });
    try {
      fs.rmdirSync(path.join(repo, '.tmp'));
    } catch {
      /* not empty: in use by something else */
    }
  };
}
