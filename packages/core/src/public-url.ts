import { S2SPError } from './errors.js';

/**
 * Normalises an http(s) base URL from configuration: absolute, http or https, no credentials,
 * query or fragment, no trailing slash. A path prefix (behind a reverse proxy) is kept. The one
 * rule for every configured base URL (`publicUrl`, `S2SP_PUBLIC_URL`, upstream URLs).
 *
 * @param value - the URL as configured
 * @param name - the setting's name, for the error (default `publicUrl`)
 * @param example - a working value to suggest
 * @throws S2SPError `invalid_config` naming the setting when the URL cannot serve as a base
 */
export function normalizePublicUrl(
  value: string,
  name = 'publicUrl',
  example = '"https://data.example.com" or "http://127.0.0.1:3001"',
): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new S2SPError(
      'invalid_config',
      `${name} ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)} is not an absolute URL. Use something like ${example}.`,
      { data: { option: name } },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new S2SPError(
      'invalid_config',
      `${name} must use http or https, not ${url.protocol.replace(':', '')}.`,
      { data: { option: name } },
    );
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new S2SPError(
      'invalid_config',
      `${name} must not contain credentials, a query or a fragment.`,
      { data: { option: name } },
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
