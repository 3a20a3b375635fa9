/** Answer shapes of the Xray stand-in (§0.5): REST `{"error"}`, GraphQL `{"errors":[{message}]}`, and the non-JSON ones. */
import type { SandboxResponse } from '../types';

const JSON_TYPE = 'application/json; charset=utf-8';

/** REST error: one `error` sentence (several problems joined with "; ", as the service does). */
export function xrayError(status: number, message: string, route: string): SandboxResponse {
  return { status, route, headers: { 'content-type': JSON_TYPE }, body: { error: message } };
}

export function ok(body: unknown, route: string): SandboxResponse {
  return { status: 200, route, headers: { 'content-type': JSON_TYPE }, body };
}

export function graphqlErrors(status: number, errors: unknown[], route: string, data?: unknown): SandboxResponse {
  return { status, route, headers: { 'content-type': JSON_TYPE }, body: data === undefined ? { errors } : { data, errors } };
}

/** 413 as field reports show it: a text/HTML page, not JSON. */
export function tooLarge(): SandboxResponse {
  return {
    status: 413,
    route: 'too large',
    headers: { 'content-type': 'text/html' },
    body: '<html><head><title>413 Request Entity Too Large</title></head><body><center><h1>413 Request Entity Too Large</h1></center></body></html>',
  };
}

/** The server fault (500 by default): JSON, or the CDN's HTML page (§0.5) when the `faultBody` switch says so. */
export function faultAnswer(style: 'json' | 'html', status = 500, route = 'fault'): SandboxResponse {
  if (style === 'html') {
    return {
      status,
      route,
      headers: { 'content-type': 'text/html' },
      body: '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN"><HTML><HEAD><TITLE>ERROR: The request could not be satisfied</TITLE></HEAD><BODY><H1>ERROR</H1><H2>The request could not be satisfied.</H2></BODY></HTML>',
    };
  }
  return xrayError(status, 'Internal server error. Please try again later.', route);
}
