/**
 * Which hosts a consumer may fetch from when its operator gave no allow-list: the runtime-neutral
 * half of "public destinations only" (the Node half, which checks resolved and connected
 * addresses, is `createPublicOnlyFetch` in `@s2sp/core/node`).
 *
 * @module
 */
import { usePublicResourceUrl } from '../advice/advice.js';
import { S2SPError } from '../errors.js';
import { isPublicAddress } from './public-address.js';

/**
 * Where a consumer may fetch `resource_url`s from when no allow-list names the origin:
 * - `'public'` (the default): only the public internet. Loopback, private, link-local (cloud
 *   metadata), carrier-grade NAT and other special-purpose addresses are refused, and so are
 *   names that only make sense inside a network (`localhost`, single-label names such as
 *   `redis`, `.local`, `.internal`, `.home.arpa`, `.lan`).
 * - `'any'`: no destination check. Only for development, or behind a
 *   network that cannot reach anything worth protecting.
 *
 * Origins on an allow-list are always allowed, loopback ones included: listing them is how a
 * demo or a test suite on one machine works.
 */
export type ConsumerDestinations = 'public' | 'any';

const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa', '.lan', '.intranet'];

/**
 * True if `hostname` (as WHATWG `URL` gives it: lower case, IPv6 in brackets) can be fetched in
 * the `'public'` mode before any name is resolved: a public IP literal, or a dotted name that is
 * not a local-only one. Names can still resolve to private addresses; only a fetch that checks
 * resolved addresses (`createPublicOnlyFetch`) closes that.
 *
 * @param hostname - a canonical host name or IP literal
 */
export function isPublicHostname(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (host.includes(':') || /^[\d.]+$/.test(host)) return isPublicAddress(host);
  if (host === 'localhost' || !host.includes('.')) return false;
  return !LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix));
}

/**
 * Refuses a non-public destination in the `'public'` mode. The message names neither the URL nor
 * the address (the URL holds a token; the address may be internal).
 *
 * @param hostname - the `resource_url`'s host
 * @param destinations - the consumer's mode
 * @throws S2SPError `invalid_request` telling the operator how to allow it
 */
export function assertPublicDestination(
  hostname: string,
  destinations: ConsumerDestinations,
): void {
  if (destinations === 'any' || isPublicHostname(hostname)) return;
  throw nonPublicDestination();
}

/** The one refusal for a non-public destination, shared by the core and Node checks. */
export function nonPublicDestination(): S2SPError {
  return new S2SPError(
    'invalid_request',
    `resource_url points at a non-public address (loopback, private or local-only). ${usePublicResourceUrl}`,
  );
}
