import { askOperatorToAllowList, passResourceUrlExactly } from './advice/advice.js';
import { S2SPError } from './errors.js';
import { PROTOCOL } from './protocol.js';
import { normalizePublicUrl } from './public-url.js';
import { sha256Hex } from './sha256.js';

/** Bytes of randomness in a token (256 bits, PROTOCOL §6). */
export const TOKEN_BYTES = 32;

// 32 bytes in unpadded base64url are 43 characters; the last one carries only 4 bits, so it is
// one of 16 characters. Checking that keeps "shape-valid" equal to "could have been minted".
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function base64url(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n =
      ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out +=
      BASE64URL[n >> 18]! +
      BASE64URL[(n >> 12) & 63]! +
      BASE64URL[(n >> 6) & 63]! +
      BASE64URL[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] as number) << 16;
    out += BASE64URL[n >> 18]! + BASE64URL[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    out += BASE64URL[n >> 18]! + BASE64URL[(n >> 12) & 63]! + BASE64URL[(n >> 6) & 63]!;
  }
  return out;
}

/**
 * Mints a token: 32 bytes from the platform CSPRNG (WebCrypto), base64url without padding.
 *
 * @returns a 43-character token
 */
export function generateToken(): string {
  return base64url(globalThis.crypto.getRandomValues(new Uint8Array(TOKEN_BYTES)));
}

/**
 * True if `value` has the exact shape of a minted token. Cheap, so the data plane can answer 404
 * for junk without touching the store.
 */
export function isTokenShape(value: unknown): value is string {
  return typeof value === 'string' && TOKEN_PATTERN.test(value);
}

/**
 * The key a store keeps an entry under: SHA-256 of the token, lowercase hex. A cache dump or a
 * log line with keys in it therefore never holds a redeemable token.
 *
 * @param token - a minted token
 * @returns 64 hex characters
 */
export async function tokenStorageKey(token: string): Promise<string> {
  return sha256Hex(token);
}

/**
 * Builds a `resource_url`: `{publicUrl}/s2sp/data/{token}`.
 *
 * @param publicUrl - the advertised base (see {@link normalizePublicUrl})
 * @param token - a minted token
 */
export function buildResourceUrl(publicUrl: string, token: string): string {
  return `${normalizePublicUrl(publicUrl)}${PROTOCOL.dataPathPrefix}${token}`;
}

/** A `resource_url` that passed {@link parseResourceUrl}. */
export interface ParsedResourceUrl {
  /** The URL rebuilt from its parsed parts; fetch this, never the raw input. */
  readonly href: string;
  /** `scheme://host[:port]`, as compared against an allow-list. */
  readonly origin: string;
  /** The token in the path. Treat as a secret: never log it. */
  readonly token: string;
}

/** Options for {@link parseResourceUrl}. */
export interface ParseResourceUrlOptions {
  /**
   * Origins (`https://data.example.com:8443`) a consumer may fetch from. When given, any other
   * origin is refused; this is the main SSRF defence, since the URL comes from an LLM. An entry
   * may carry a path prefix (`https://gateway.example.com/weather`): that origin's resource_urls
   * may then also live under `/weather/s2sp/data/{token}`.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * Path prefixes (`/api/v1`) a resource_url may have before `/s2sp/data/{token}`, on any
   * allowed origin. Without one, the path must be exactly `/s2sp/data/{token}` at the origin's
   * root (or under a prefix of an `allowedOrigins` entry): an LLM-chosen prefix would let it
   * address any path on a host (`/admin/users/delete%3Fall=1/s2sp/data/…`).
   */
  readonly pathPrefixes?: readonly string[];
}

const PATH_PATTERN = /^((?:\/[^/]+)*)\/s2sp\/data\/([^/]+)$/;

function refuse(reason: string): never {
  // The message never repeats the URL: it may carry a live token.
  throw new S2SPError(
    'invalid_request',
    `resource_url is not a valid S2SP data-plane URL: ${reason}. ${passResourceUrlExactly}`,
  );
}

/** Parses an allow-list entry into its origin and path prefix ('' at the root). */
function allowedEntry(entry: string): { origin: string; prefix: string } | undefined {
  try {
    const url = new URL(entry);
    return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, '') };
  } catch {
    return undefined;
  }
}

/**
 * Validates a `resource_url` before anything is fetched (PROTOCOL §4): an absolute http(s) URL
 * in canonical form (what WHATWG `URL` would not rewrite — so no backslashes, dot segments,
 * percent-encoded dots, default ports or upper-case hosts), without credentials, query or
 * fragment, whose path is exactly `/s2sp/data/{token}` (or that under a configured prefix), and
 * whose origin is allowed.
 *
 * @param input - the URL as received
 * @param options - optional origin allow-list
 * @throws S2SPError `invalid_request` with a reason that never contains the token
 */
export function parseResourceUrl(
  input: unknown,
  options: ParseResourceUrlOptions = {},
): ParsedResourceUrl {
  if (typeof input !== 'string' || input.trim() === '') refuse('it is empty or not a string');
  const text = input.trim();
  if (text.startsWith(PROTOCOL.ddiScheme)) {
    refuse(
      "it is a ddi:// handle, which only the agent's S2SP layer (@s2sp/client) can resolve into body_data",
    );
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    refuse('it is not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    refuse(`the scheme ${url.protocol.replace(':', '')} is not http or https`);
  if (url.username !== '' || url.password !== '' || text.includes('@'))
    refuse('it contains credentials (user@host)');
  if (url.search !== '' || url.hash !== '' || text.includes('#') || text.includes('?'))
    refuse('it has a query or a fragment');
  if (url.href !== text) refuse('it is not in canonical form');
  const match = PATH_PATTERN.exec(url.pathname);
  if (!match || !isTokenShape(match[2]))
    refuse('its path is not /s2sp/data/ followed by a 43-character token');
  const prefix = match[1] ?? '';
  const prefixes = (options.pathPrefixes ?? []).map((p) => `/${p.replace(/^\/+|\/+$/g, '')}`);
  const entries = options.allowedOrigins
    ?.map(allowedEntry)
    .filter((e): e is { origin: string; prefix: string } => e?.origin === url.origin);
  if (entries && entries.length === 0) {
    // The fault is the consumer's configuration, not the call: say so, so that a model does not
    // retry or rewrite the URL. Only the origin the caller sent is named, never the allow-list.
    throw new S2SPError(
      'forbidden',
      `The resource_url's origin ${url.origin} is not on this consumer's allow-list. ${askOperatorToAllowList}`,
    );
  }
  const prefixAllowed =
    prefix === '' ||
    prefixes.includes(prefix) ||
    (entries?.some((entry) => entry.prefix === prefix) ?? false);
  if (!prefixAllowed)
    refuse(
      "its path must be exactly /s2sp/data/{token} at the server root (or under a path prefix this consumer's operator configured)",
    );
  return { href: `${url.origin}${url.pathname}`, origin: url.origin, token: match[2] as string };
}
