import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/http/errors';
import type { RequestLane } from '../../src/kit/lane';
import { EnvironmentBuilds, environmentFor } from '../../src/targets/cucumberstudio/build-place';
import type { CucumberStudioClient, JsonApiDocument } from '../../src/targets/cucumberstudio/client';

/**
 * Split mode's environments: found by name (trimmed, case-insensitive) or created; a refused create is another
 * creator's (names are unique): the run is listed again and that one is used, else the service's words.
 */
type Env = { id: string; name: string };
function service(environments: Env[], onCreate: (name: string) => Env | HttpError) {
  const calls: string[] = [];
  const list = (data: Array<{ id: string; attributes: Record<string, unknown> }>): JsonApiDocument => ({ data });
  const client = {
    listEnvironments: async () => (calls.push('list'), list(environments.map((e) => ({ id: e.id, attributes: { name: e.name } })))),
    createEnvironmentOnce: async (_run: number, name: string) => {
      calls.push(`create ${name}`);
      const made = onCreate(name);
      if (made instanceof HttpError) throw made;
      environments.push(made);
      return { data: { id: made.id, attributes: { name } } };
    },
    listBuilds: async () => list([{ id: '50', attributes: { name: 'ci 1', 'is-running': true } }]),
  } as unknown as CucumberStudioClient;
  const lane = { retry: (_label: string, op: (attempt: number, mayHaveApplied: boolean) => Promise<unknown>) => op(1, false) };
  return { builds: new EnvironmentBuilds(client, lane as unknown as RequestLane, 'ci 1'), calls };
}
const refusal = (words: string) => new HttpError('CucumberStudio', 'POST', '/x', 422, {}, '', `CucumberStudio answered 422: ${words}`);

describe('CucumberStudio execution environments (split mode)', () => {
  it('an existing one is found trimmed and case-insensitively; a missing one is created once', async () => {
    const { builds, calls } = service(
      [
        { id: '1', name: 'Default' },
        { id: '7', name: ' Alpha ' },
      ],
      (name) => ({ id: '8', name }),
    );
    expect((await builds.place(3, 'alpha')).environmentId).toBe('7');
    expect((await builds.place(3, 'beta')).environmentId).toBe('8');
    expect((await builds.place(3, 'beta')).buildId).toBe('50');
    expect(calls).toEqual(['list', 'list', 'create beta']);
  });

  it('a create refused because another process made it meanwhile: listed again, and that one used', async () => {
    const environments = [{ id: '1', name: 'Default' }];
    const { builds, calls } = service(environments, () => {
      environments.push({ id: '9', name: 'BETA' }); // the other creator's, seen only by the next listing
      return refusal('name has already been taken');
    });
    expect((await builds.place(3, 'beta')).environmentId).toBe('9');
    expect(calls).toEqual(['list', 'create beta', 'list']);
  });

  it("a create refused for another reason: the service's words; a name past 255 characters: said, nothing sent", async () => {
    const { builds } = service([{ id: '1', name: 'Default' }], () => refusal('name is invalid'));
    await expect(builds.place(3, 'beta')).rejects.toThrow('name is invalid');
    const long = builds.placeOrWhy(3, 'x'.repeat(256));
    await expect(long).resolves.toEqual({ why: expect.stringContaining('at most 255') });
  });

  it("an unnamed project's results go to the run's Default environment", () => {
    expect(environmentFor('')).toBe('Default');
    expect(environmentFor(undefined)).toBe('Default');
    expect(environmentFor(' firefox ')).toBe('firefox');
  });
});
