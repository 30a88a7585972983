/**
 * `@s2sp/core/node`: Node-only helpers for consumers (the public-destinations-only fetch).
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { S2SPError } from '../errors.js';
import { nonPublicDestination } from '../fetch/destination.js';
import { isPublicAddress } from '../fetch/public-address.js';

export { isPublicAddress } from '../fetch/public-address.js';

// One sentence for every refusal: naming the address a name resolved to would tell an LLM (or
// whoever steers it) about the internal network.
function refused(_where: string): S2SPError {
  return nonPublicDestination();
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `dns.lookup` that only yields public addresses, so a name can never lead to a private one. */
function publicLookup(
  hostname: string,
  options: { all?: boolean; family?: number },
  callback: LookupCallback,
): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, options.all ? [] : '', undefined);
    const list = addresses as LookupAddress[];
    const bad = list.find((a) => !isPublicAddress(a.address));
    if (bad)
      return callback(
        refused(`${hostname} resolves to ${bad.address}`) as NodeJS.ErrnoException,
        options.all ? [] : '',
        undefined,
      );
    if (options.all) return callback(null, list);
    const first = list[0];
    if (!first)
      return callback(
        Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }),
        '',
        undefined,
      );
    callback(null, first.address, first.family);
  });
}

/**
 * A `fetch` for consumers that must only reach the public internet — the "public destinations
 * only" mode for servers that cannot list their resource servers in an allow-list. It refuses
 * loopback, private, link-local (cloud metadata), carrier-grade NAT, multicast, reserved and
 * IPv4-mapped/NAT64/6to4-embedded forms of those, three times over: for IP literals before
 * connecting, for every address a name resolves to (the connection uses only the address that
 * was checked, so DNS rebinding cannot slip in), and for the connected socket's remote address
 * before a byte is written. Redirects are returned, never followed.
 *
 * It implements what `fetchBody` needs (method, headers, string body, signal), over `node:http`
 * and `node:https`. Pass it as `fetchBody(url, { fetch })` or the server's `consumer.fetch`, or
 * leave an S2SP server's consumer tools at their default (`destinations: 'public'`), which uses it.
 */
export function createPublicOnlyFetch(): typeof fetch {
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && !isPublicAddress(host)) throw refused(host);
    const body =
      typeof init.body === 'string' ? init.body : init.body == null ? undefined : String(init.body);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => {
      headers[key] = value;
    });
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;

    return new Promise<Response>((resolve, reject) => {
      const req = send(
        url,
        {
          method: init.method ?? 'GET',
          headers,
          lookup: publicLookup as never,
          signal: init.signal ?? undefined,
        },
        (res: IncomingMessage) => {
          const responseHeaders = new Headers();
          for (const [key, value] of Object.entries(res.headers)) {
            if (Array.isArray(value)) for (const v of value) responseHeaders.append(key, v);
            else if (value !== undefined) responseHeaders.set(key, value);
          }
          const status = res.statusCode ?? 500;
          const stream =
            status === 204 || status === 304 || init.method === 'HEAD'
              ? null
              : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
          resolve(
            new Response(stream, {
              status,
              statusText: res.statusMessage ?? '',
              headers: responseHeaders,
            }),
          );
        },
      );
      req.on('socket', (socket: Socket) => {
        const check = () => {
          const remote = socket.remoteAddress ?? '';
          if (!isPublicAddress(remote)) req.destroy(refused(`connected to ${remote}`));
        };
        if (socket.connecting) socket.once('connect', check);
        else check();
      });
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  }) as typeof fetch;
}
