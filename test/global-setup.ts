import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Once for the whole run: at its end, the scratch folder goes too. Each test file already removes the
 * folders it made (test/setup.ts); this catches what a killed child process wrote after its file ended.
 */
export default function setup(): () => void {
  return () => fs.rmSync(path.resolve(__dirname, '..', '.tmp'), { recursive: true, force: true });
}
