import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { readOutput } from './harness';

// The harness reads a child's two streams as one text; tests look for the reporter's lines at a line's start.
it('a reporter line on stderr after test marks on stdout (no line end) still starts a line of its own', async () => {
  const child = spawn(
    process.execPath,
    ['-e', "process.stdout.write('°°'); setTimeout(() => process.stderr.write('[tms-reporter] a line\\n'), 200);"],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output = readOutput(child);
  await new Promise((resolve) => child.on('close', resolve));
  expect(output()).toBe('°°\n[tms-reporter] a line\n');
  expect(output().split('\n')).toContain('[tms-reporter] a line');
});
