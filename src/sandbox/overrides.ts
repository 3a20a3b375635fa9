import type { ResponseOverride, SandboxRequest, ServiceFaults } from './types';

/** Copies the override list so that `times` counts down on the sandbox's own copy, not the caller's. */
export function withOwnOverrides(f: ServiceFaults): ServiceFaults {
  return f.overrides ? { ...f, overrides: f.overrides.map((o) => ({ ...o, headers: o.headers ? { ...o.headers } : undefined })) } : f;
}

/** The first matching override (its `times` counted down; dropped when used up), or undefined. */
export function takeOverride(f: ServiceFaults, req: SandboxRequest): ResponseOverride | undefined {
  const list = f.overrides;
  if (!list?.length) return undefined;
  const i = list.findIndex(
    (o) =>
      (!o.method || o.method.toUpperCase() === req.method) &&
      (o.pathIncludes !== undefined || o.pathEquals !== undefined) &&
      (o.pathIncludes === undefined || req.rawTarget.includes(o.pathIncludes)) &&
      (o.pathEquals === undefined || req.rawPath === o.pathEquals),
  );
  if (i < 0) return undefined;
  const o = list[i];
  if (o.times !== undefined) {
    o.times--;
    if (o.times <= 0) list.splice(i, 1);
  }
  return o;
}
