import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Outbox } from '../../src/engine/outbox';
import { uploadNames } from '../../src/engine/uploads';

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
  it('writes version 2 and reads it back; a journal whose targets all complete is deleted', () => {
    const dir = tmp();
    const meta = {
      zephyr: { settings: { projectId: 1 }, containerName: 'N' },
      other: { settings: {}, containerName: 'M', containerId: '5' },
    };
    const box = new Outbox(dir, { targets: meta, build: '4711' });
    box.appendTests([{ testId: 't', title: 't', keys: { zephyr: ['P-1'], other: ['x'] }, outcome: 'passed', attempts: 1 }]);
    box.container('zephyr', '77', 'N');
    box.refused('other', [['y', 'no such scenario']]);
    box.complete('zephyr');
    const head = JSON.parse(fs.readFileSync(box.file, 'utf8').split('\n')[0]);
    expect(head).toMatchObject({ t: 'meta', v: 2, targets: meta, build: '4711' });
    const [j] = Outbox.load(dir);
    expect(j.version).toBe(2);
    // Its replay publishes into the run's CI build, whichever job replays it.
    expect(j.build).toBe('4711');
    expect(j.targets.zephyr.containerId).toBe('77');
    expect(j.records[0].keys).toEqual({ zephyr: ['P-1'], other: ['x'] });
    expect(j.refused.get('other')).toEqual(new Map([['y', 'no such scenario']]));
    expect(box.finalize()).toBe(box.file);
    box.complete('other');
    expect(box.finalize()).toBeUndefined();
    expect(fs.existsSync(box.file)).toBe(false);
  });

  it('a journal that stops being written mid-run is not reported as kept; the run is told once', () => {
    const told: string[] = [];
    const box = new Outbox(
      path.join(tmp(), 'tms-outbox'),
      { targets: { zephyr: { settings: {}, containerName: 'N' } } },
      undefined,
      (why) => told.push(why),
    );
    const rec = (testId: string) => ({ testId, title: testId, keys: { zephyr: ['P-1'] }, outcome: 'passed' as const, attempts: 1 });
    box.appendTests([rec('a')]);
    // Where its attachment bodies go, a file: the next write fails (as on a full or read-only disk).
    fs.writeFileSync(box.file.replace(/\.jsonl$/, '.files'), '');
    expect(box.saveBody('b', 0, 'log', 'text/plain', Buffer.from('x'))).toBeUndefined();
    box.appendTests([rec('b')]);
    expect(told).toHaveLength(1);
    expect(box.unwritable).toBeTruthy();
    expect(box.finalize()).toBeUndefined();
  });

  it('upload names of files with the same name stay the same when replay reads their copies from a moved outbox', () => {
    const work = tmp();
    const shot = (slug: string) => {
      const f = path.join(work, 'test-results', slug, 'screenshot.png');
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, slug);
      return { name: 'screenshot', contentType: 'image/png', path: f };
    };
    const attachments = [shot('a-chromium'), shot('b-chromium'), { name: 'log', contentType: 'text/plain', body: Buffer.from('x') }];
    const box = new Outbox(path.join(work, 'tms-outbox'), { targets: { zephyr: { settings: {}, containerName: 'N' } } });
    const body = box.saveBody('t1', 2, 'screenshot', 'image/png', Buffer.from('y'));
    const rec = {
      testId: 't1',
      title: 't',
      keys: { zephyr: ['P-1'] },
      outcome: 'failed' as const,
      attempts: 1,
      attachments: [attachments[0], attachments[1], { name: 'screenshot', contentType: 'image/png', path: body }],
    };
    box.appendTests([rec]);
    const live = uploadNames(rec.attachments).map((n) => n.fileName);
    expect(new Set(live).size).toBe(3); // same name: told apart by a hash of where the file is
    expect(box.finalize({ records: [rec], maxBytes: 1e6, secrets: [] })).toBe(box.file);
    // The outbox goes elsewhere (a CI artifact), the run's test-results are gone.
    const elsewhere = path.join(tmp(), 'artifact');
    fs.cpSync(path.join(work, 'tms-outbox'), elsewhere, { recursive: true });
    fs.rmSync(work, { recursive: true, force: true });
    const [j] = Outbox.load(elsewhere);
    const refs = j.records[0].attachments!;
    for (const r of refs) expect(fs.existsSync(r.path!), r.path).toBe(true);
    expect(uploadNames(refs).map((n) => n.fileName)).toEqual(live);
  });
});
