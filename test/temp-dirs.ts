/**
 * The run folders tests make, and their removal after each test file (test/setup.ts). Kept apart from the
 * integration harness: the setup file runs in every test file, and importing the harness there loaded the
 * whole sandbox (every service, GraphQL included) into each of ~120 files, unit tests too (~1 s each).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inject } from 'vitest';

let counter = 0;
const made: string[] = [];
/** A folder for one run inside the repository (so the reporter resolves by package name); removed after the file's tests. */
export function tempDir(label: string): string {
  const dir = path.join(inject('scratchDir'), `${label}-${process.pid}-${Date.now()}-${counter++}`);
  fs.mkdirSync(dir, { recursive: true });
  made.push(dir);
  return dir;
}

/** Removes every folder tempDir made in this process (vitest runs it after each test file, see test/setup.ts). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  // The run's scratch folder itself goes at the run's end (test/global-setup.ts).
}
