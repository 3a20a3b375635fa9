import { createHash } from 'node:crypto';

/**
 * Server-side query string hash (qsh) of the Atlassian JWT scheme, as ZAPI cloud checks it
 * (wire reference §2.4). Written independently of any client code: it works on the request-target
 * exactly as received (percent-escapes untouched) and never looks at the body.
 *
 *   canonical = METHOD & CANONICAL_URI & CANONICAL_QUERY
 *   qsh       = lowercase hex SHA-256 of the UTF-8 bytes of canonical
 */

/** Canonical URI (§2.4 steps 1-6): raw path, context path removed, `&` escaped, one leading `/`, no trailing `/`. */
export function canonicalUri(rawPath: string, contextPath: string): string {
  let path = rawPath;
  const ctx = normalizeContextPath(contextPath);
  if (ctx !== '' && (path === ctx || path.startsWith(ctx + '/'))) path = path.slice(ctx.length);
  if (path === '') path = '/';
  path = path.split('&').join('%26');
  if (!path.startsWith('/')) path = '/' + path;
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path;
}

/** Canonical query (§2.4 query steps 1-9) of a raw query string (the part after `?`, without `#`). */
export function canonicalQuery(rawQuery: string): string {
  const hash = rawQuery.indexOf('#');
  const query = hash < 0 ? rawQuery : rawQuery.slice(0, hash);
  const groups = new Map<string, string[]>();
  for (const piece of query.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const name = formDecode(eq < 0 ? piece : piece.slice(0, eq));
    const value = eq < 0 ? '' : formDecode(piece.slice(eq + 1));
    if (name === 'jwt') continue;
    const list = groups.get(name);
    if (list) list.push(value);
    else groups.set(name, [value]);
  }
  const params = [...groups].map(([name, values]) => ({
    name: rfc3986Encode(name),
    value: values.slice().sort(compareCodePoints).map(rfc3986Encode).join(','),
  }));
  params.sort((a, b) => compareCodePoints(a.name, b.name));
  return params.map((p) => `${p.name}=${p.value}`).join('&');
}

/** `METHOD&uri&query` for a raw request-target (path + optional `?query`). */
export function canonicalRequest(method: string, rawTarget: string, contextPath: string): string {
  const { path, query } = splitTarget(rawTarget);
  return `${method.toUpperCase()}&${canonicalUri(path, contextPath)}&${canonicalQuery(query)}`;
}

/** Lowercase hex SHA-256 of a canonical request string. */
export function hashCanonical(canonical: string): string {
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/** The qsh the server expects for this method and raw request-target. */
export function computeQsh(method: string, rawTarget: string, contextPath: string): string {
  return hashCanonical(canonicalRequest(method, rawTarget, contextPath));
}

/**
 * Hashes accepted in lenient mode besides the strict one (deviations from production, off by
 * default): the raw query as received instead of the canonical one, and/or the path still
 * including the context path.
 */
export function lenientQshCandidates(method: string, rawTarget: string, contextPath: string): string[] {
  const { path, query } = splitTarget(rawTarget);
  const m = method.toUpperCase();
  const uris = [canonicalUri(path, contextPath), canonicalUri(path, '')];
  const queries = [canonicalQuery(query), query.split('#')[0]];
  const out = new Set<string>();
  for (const u of uris) for (const q of queries) out.add(hashCanonical(`${m}&${u}&${q}`));
  return [...out];
}

export function splitTarget(rawTarget: string): { path: string; query: string } {
  const q = rawTarget.indexOf('?');
  if (q < 0) return { path: rawTarget.split('#')[0], query: '' };
  return { path: rawTarget.slice(0, q), query: rawTarget.slice(q + 1).split('#')[0] };
}

export function normalizeContextPath(contextPath: string): string {
  let ctx = contextPath.trim();
  if (ctx === '' || ctx === '/') return '';
  if (!ctx.startsWith('/')) ctx = '/' + ctx;
  while (ctx.length > 1 && ctx.endsWith('/')) ctx = ctx.slice(0, -1);
  return ctx;
}

/** Form decoding: `+` is a space, `%XX` a byte, the bytes are read as UTF-8; a malformed `%` stays literal. */
export function formDecode(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '+') {
      bytes.push(0x20);
    } else if (ch === '%' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      const cp = text.codePointAt(i) as number;
      if (cp > 0xffff) i++;
      for (const b of Buffer.from(String.fromCodePoint(cp), 'utf8')) bytes.push(b);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** RFC 3986 encoding of UTF-8 bytes: only `A-Z a-z 0-9 - . _ ~` stay literal, hex is upper case. */
export function rfc3986Encode(text: string): string {
  let out = '';
  for (const b of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-._~]/.test(c)) out += c;
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** Code-point order (differs from JS's UTF-16 order only for astral characters). */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const d = (x.value.codePointAt(0) as number) - (y.value.codePointAt(0) as number);
    if (d !== 0) return d;
  }
}
