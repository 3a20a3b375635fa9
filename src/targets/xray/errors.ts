import { saidIn, type ErrorFacts, type MessageTable } from '../../http/exchange';

/** Xray's sentences: what to check for each answer, with the service's own words (`{"error"}`, text, HTML). */
export function xrayMessages(baseUrl: string): MessageTable {
  return (f: ErrorFacts) => {
    const said = saidIn(f);
    if (f.status === 401 && /\/authenticate$/.test(f.path)) {
      return (
        `Xray rejected the API key (401${said}). Check XRAY_CLIENT_ID and XRAY_CLIENT_SECRET (xray.clientId / clientSecret): ` +
        `an API key of Xray > Global Settings > API Keys, of a user with a valid Xray licence.`
      );
    }
    if (f.status === 401) {
      return (
        `Xray refused the token on ${f.where} (401${said}) after a new one was asked for. Check that XRAY_BASE_URL (xray.baseUrl) = ` +
        `${baseUrl} is your tenant's region (https://xray.cloud.getxray.app, or eu./us./au.xray.cloud.getxray.app with data residency), ` +
        `and that the API key of XRAY_CLIENT_ID was not revoked.`
      );
    }
    if (f.status === 400 && /\/authenticate$/.test(f.path)) return `Xray refused the authentication request (400${said}).`;
    if (f.status === 413)
      return `Xray refused ${f.where} as too large (413${said || ': Request Entity Too Large'}); nothing of it was imported.`;
    if (f.status === 429)
      return `Xray rate limit reached on ${f.where} (429; Retry-After ${f.headers['retry-after'] ?? 'not given'}${said}).`;
    if (f.html)
      return `Xray answered ${f.where} with HTTP ${f.status} and an HTML page instead of JSON (a proxy, an outage, or a wrong XRAY_BASE_URL (xray.baseUrl): ${baseUrl}).`;
    if (f.status === 404)
      return `Xray has no ${f.where} (404${said}): XRAY_BASE_URL (xray.baseUrl) = ${baseUrl} should be the origin only, e.g. https://xray.cloud.getxray.app.`;
    return undefined;
  };
}
