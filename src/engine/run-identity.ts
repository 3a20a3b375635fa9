import * as path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import type { ResolvedConfig } from '../config/config';
import type { JournalTargetMeta } from '../kit/target';
import type { Journal } from './outbox';

/** What a run is to its journal and to the services: its targets' meta, when it began publishing, its mark. */

/** What each target's journal keeps; targets with bad settings are journaled too, so fixing them and replaying sends them. */
export function journalMeta(config: ResolvedConfig): Record<string, JournalTargetMeta> {
  const meta: Record<string, JournalTargetMeta> = {};
  for (const { definition, config: c } of config.targets) meta[definition.id] = definition.journalMeta(c);
  // Settings stay the environment's (the replay's, once fixed); the container is the one the run meant.
  for (const d of config.invalid) {
    const c = config.invalidContainers[d.id];
    meta[d.id] ??= { settings: {}, containerName: c?.name ?? '', ...(c?.id ? { containerId: c.id } : {}) };
  }
  return meta;
}

/** When what is published began: the replayed run's start (its journal's), or now. */
export function publishingSince(journal: Journal | undefined, startedAt: Date): number | undefined {
  if (!journal) return startedAt.getTime();
  const at = Date.parse(journal.createdAt);
  return Number.isNaN(at) ? undefined : at;
}

/** Eight hex characters of the journal's name (a run and its replays share it); a run without one gets its own. */
export function runMark(journalFile: string | undefined): string {
  return createHash('sha1')
    .update(journalFile ? path.basename(journalFile, '.jsonl') : randomBytes(8).toString('hex'))
    .digest('hex')
    .slice(0, 8);
}
