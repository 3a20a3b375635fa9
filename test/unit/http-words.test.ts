import { describe, expect, it } from 'vitest';
import { serviceWords, WORDS_MAX } from '../../src/http/words';
import { redact } from '../../src/http/errors';
import { httpError } from '../../src/http/exchange';
import { rawStrings } from '../../src/kit/config-fields';
import { cucumberStudioSecrets } from '../../src/targets/cucumberstudio/config';

describe("serviceWords: the service's own words from any error body", () => {
  it('JSON:API errors: detail, else title; several joined', () => {
    expect(serviceWords('{"errors":[{"status":"404","title":"Not Found","detail":"Project 7 not found"}]}')).toBe('Project 7 not found');
    expect(serviceWords('{"errors":[{"status":"406","title":"Not Acceptable"}]}')).toBe('Not Acceptable');
    expect(serviceWords('{"errors":[{"detail":"name is empty"},{"detail":"scenario_ids is not a list"}]}')).toBe(
      'name is empty; scenario_ids is not a list',
    );
  });

  it('devise string arrays, {"error"}, {"errors": "…"}, Rails field maps', () => {
    expect(serviceWords('{"errors":["Invalid login credentials. Please try again."]}')).toBe(
      'Invalid login credentials. Please try again.',
    );
    expect(serviceWords('{"success":false,"errors":["You need to sign in or sign up before continuing."]}')).toBe(
      'You need to sign in or sign up before continuing.',
    );
    expect(serviceWords('{"error":"You need to sign in or sign up before continuing."}')).toBe(
      'You need to sign in or sign up before continuing.',
    );
    expect(serviceWords('{"error":{"code":500,"message":"Internal error"}}')).toBe('Internal error');
    expect(serviceWords('{"errors":"Unauthorized"}')).toBe('Unauthorized');
    expect(serviceWords('{"errors":{"name":["can\'t be blank","is too short"]}}')).toBe("name can't be blank; is too short");
  });

  it('ZAPI envelopes: clientMessage, errorDesc, message, errorMessages', () => {
    expect(serviceWords('{"errorType":"ERROR","clientMessage":"Please wait for 34 seconds","errorCode":429}')).toBe(
      'Please wait for 34 seconds',
    );
    expect(serviceWords('{"errorDesc":"Cycle name is required","errorCode":151}')).toBe('Cycle name is required');
    expect(serviceWords('{"message":"Expecting claim \'qsh\' to have value \'abc\'"}')).toBe("Expecting claim 'qsh' to have value 'abc'");
    expect(serviceWords('{"errorMessages":["Issue does not exist","or you lack permission"],"errors":{}}')).toBe(
      'Issue does not exist; or you lack permission',
    );
    // Jira's empty envelope says nothing: no words rather than "{}".
    expect(serviceWords('{"errorMessages":[],"errors":{}}')).toBeUndefined();
  });

  it('a JSON string body is the message', () => {
    expect(serviceWords('"Invalid job token"')).toBe('Invalid job token');
  });

  it('plain text: trimmed, first lines on one line, capped', () => {
    expect(serviceWords('  Unauthorized  \n')).toBe('Unauthorized');
    expect(serviceWords('Bad gateway\n\nupstream connect error\nat line 1\nat line 2\nat line 3')).toBe(
      'Bad gateway upstream connect error at line 1',
    );
    expect(serviceWords('\u001b[31mred\u001b[0m alert\u0007')).toBe('red alert');
    const long = serviceWords('x'.repeat(5_000))!;
    expect(long.length).toBe(WORDS_MAX);
    expect(long.endsWith('…')).toBe(true);
    // Truncated JSON is plain text: still shown, not lost.
    expect(serviceWords('{"errors":["Invalid login')).toBe('{"errors":["Invalid login');
  });

  it('empty or HTML: no words (callers say "an HTML page" / "an empty body")', () => {
    expect(serviceWords('')).toBeUndefined();
    expect(serviceWords('   \n')).toBeUndefined();
    expect(serviceWords(undefined)).toBeUndefined();
    expect(serviceWords('<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>')).toBeUndefined();
    expect(serviceWords('\n<html><head><title>Sign in</title></head></html>')).toBeUndefined();
    expect(serviceWords('<h1>Service Unavailable</h1><p>try later</p>')).toBeUndefined();
  });

  it('shows nothing secret when the caller redacts first', () => {
    const token = 'tok-12345-SECRET';
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhYmNkZWYifQ.c2lnbmF0dXJlLXZhbHVl';
    const said = serviceWords(redact(`{"errors":["access-token ${token} expired","bearer ${jwt}"]}`, [token]));
    expect(said).toBe('access-token [redacted] expired; bearer [redacted-jwt]');
  });

  it('redacts a secret given with a trailing newline or in quotes, as used and as JSON text quotes it', () => {
    const secrets = cucumberStudioSecrets({ accessToken: 'tok-12345-SECRET\r\n' }, { CUCUMBERSTUDIO_ACCESS_TOKEN: '"tok-quoted-9876"' });
    expect(redact('token=tok-12345-SECRET\nnext line', secrets)).toBe('token=[redacted]\nnext line');
    expect(redact('{"error":"token \\"tok-quoted-9876\\" is invalid"}', secrets)).toBe('{"error":"token [redacted] is invalid"}');
    expect(redact(JSON.stringify({ sent: 'a"tok-quoted-9876"b' }), secrets)).not.toContain('tok-quoted');
  });
});

describe('a credential the service echoes back escaped is not shown', () => {
  // Standard base64 (Zephyr's access keys): `/`, `+` and a trailing `=`.
  const key = 'amlyYTpk/ZWYrYWJj+ZGVm=';
  const bodies = [
    `{"clientMessage":"Unknown access key ${key.replace(/\//g, '\\/')}"}`, // PHP, some Java encoders
    `{"clientMessage":"Unknown access key ${key.replace('=', '\\u003d')}"}`, // Gson's HTML-safe default
    `{"clientMessage":"Unknown access key ${key.replace(/\//g, '\\/').replace('=', '\\u003d')}"}`, // both at once
  ];
  const answer = (text: string) => ({ status: 401, headers: {}, text, durationMs: 1 });
  it('neither in the message (the words are redacted after parsing) nor in the body kept', () => {
    const secrets = rawStrings([key]);
    for (const text of bodies) {
      const e = httpError({ service: 'Zephyr', messages: () => undefined, secrets }, 'GET', '/x', answer(text));
      expect(e.message).toContain('Unknown access key [redacted]');
      expect(e.message).not.toContain('ZWYrYWJj');
    }
    // The two single forms are redacted in the raw body too (what debug output and the journal could show).
    for (const text of bodies.slice(0, 2)) expect(redact(text, secrets)).not.toContain('ZWYrYWJj');
  });
});
