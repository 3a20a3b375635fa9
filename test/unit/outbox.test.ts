import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Outbox } from '../../src/engine/outbox';
import { TARGETS } from '../../src/targets';

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'outbox-test-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('outbox journal', () => {
  it("reads a version-1 journal (written before targets were generic) as today's shape", () => {
    const dir = tmp();
    const lines = [
      {
        t: 'meta',
        v: 1,
        runId: 'run-old',
        createdAt: '2026-11-01T00:00:00Z',
        targets: {
          zephyr: { projectId: 10000, versionId: -1, containerName: 'Nightly', containerId: '42' },
          cucumberstudio: { projectId: 0, containerName: '' },
        },
      },
      {
        t: 'test',
        rec: { testId: 't1', title: 'a', zephyrKeys: ['PROJ-1'], scenarioIds: [7], outcome: 'failed', error: 'x', attempts: 2 },
      },
      { t: 'test', rec: { testId: 't2', title: 'b', zephyrKeys: [], scenarioIds: [], outcome: 'passed', attempts: 1 } },
      { t: 'done', target: 'zephyr', items: [['PROJ-9', 1]] },
    ];
    fs.writeFileSync(path.join(dir, 'run-old.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const [j] = Outbox.load(dir, TARGETS);
    expect(j.targets.zephyr).toEqual({ settings: { projectId: 10000, versionId: -1 }, containerName: 'Nightly', containerId: '42' });
    // An invalid target was journaled with projectId 0 in v1: nothing to carry over.
    expect(j.targets.cucumberstudio).toEqual({ settings: {}, containerName: '', containerId: undefined });
    expect(j.records).toEqual([
      { testId: 't1', title: 'a', keys: { zephyr: ['PROJ-1'], cucumberstudio: ['7'] }, outcome: 'failed', error: 'x', attempts: 2 },
      { testId: 't2', title: 'b', keys: {}, outcome: 'passed', error: undefined, attempts: 1 },
    ]);
    expect(j.done.get('zephyr')).toEqual(new Map([['PROJ-9', 1]]));
  });

  it('writes version 2 and reads it back; a journal whose targets all complete is deleted', () => {
    const dir = tmp();
    const meta = {
      zephyr: { settings: { projectId: 1 }, containerName: 'N' },
      other: { settings: {}, containerName: 'M', containerId: '5' },
    };
    const box = new Outbox(dir, meta);
    box.appendTests([{ testId: 't', title: 't', keys: { zephyr: ['P-1'], other: ['x'] }, outcome: 'passed', attempts: 1 }]);
    box.container('zephyr', '77', 'N');
    box.complete('zephyr');
    const head = JSON.parse(fs.readFileSync(box.file, 'utf8').split('\n')[0]);
    expect(head).toMatchObject({ t: 'meta', v: 2, targets: meta });
    const [j] = Outbox.load(dir, TARGETS);
    expect(j.targets.zephyr.containerId).toBe('77');
    expect(j.records[0].keys).toEqual({ zephyr: ['P-1'], other: ['x'] });
    expect(box.finalize()).toBe(box.file);
    box.complete('other');
    expect(box.finalize()).toBeUndefined();
    expect(fs.existsSync(box.file)).toBe(false);
  });
});
