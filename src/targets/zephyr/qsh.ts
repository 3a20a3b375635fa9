import { createHash } from 'node:crypto';

/**
 * Atlassian query string hash (spec §2.4): `METHOD&canonical-path&canonical-query`, SHA-256, hex.
 * The path is taken as sent, minus the base URL's context path (`/connect` in production): hashing a
 * path that still contains it is the classic 401.
 */
export function canonicalRequest(method: string, url: string, baseUrl: string): string {
  const u = new URL(url);
  const contextPath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  // `URL.pathname` keeps percent-escapes as sent; the query is read raw from `search` below.
  return `${method.toUpperCase()}&${canonicalUri(u.pathname, contextPath)}&${canonicalQuery(u.search.replace(/^\?/, ''))}`;
}

export function queryStringHash(method: string, url: string, baseUrl: string): string {
  return createHash('sha256')
    .update(canonicalRequest(method, url, baseUrl), 'utf8')
    .digest('hex');
}

export function canonicalUri(rawPath: string, contextPath: string): string {
  let p = rawPath;
  if (contextPath && (p === contextPath || p.startsWith(`${contextPath}/`))) p = p.slice(contextPath.length);
  if (!p) p = '/';
  p = p.replace(/&/g, '%26');
  if (!p.startsWith('/')) p = `/${p}`;
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p;
}

/** RFC 3986 unreserved characters stay; every other UTF-8 byte becomes %XX (upper case). */
export function percentEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function formDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text.replace(/\+/g, ' ');
  }
}

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function canonicalQuery(rawQuery: string): string {
  const groups = new Map<string, string[]>();
  for (const piece of rawQuery.split('#')[0].split('&')) {
    if (!piece) continue;
    const eq = piece.indexOf('=');
    const name = formDecode(eq < 0 ? piece : piece.slice(0, eq));
    const value = eq < 0 ? '' : formDecode(piece.slice(eq + 1));
    if (name === 'jwt') continue;
    const list = groups.get(name) ?? [];
    list.push(value);
    groups.set(name, list);
  }
  return [...groups.entries()]
    .map(([name, values]) => [percentEncode(name), values.sort(byCodePoint).map(percentEncode).join(',')] as const)
    .sort(([a], [b]) => byCodePoint(a, b))
    .map(([name, values]) => `${name}=${values}`)
    .join('&');
}
