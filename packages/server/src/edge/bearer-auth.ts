import { S2SPError, sha256Hex } from '@s2sp/core';
import { parseOptions, stringList } from '@s2sp/core/options';
import type { MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { sendBearerToken } from '../advice.js';
import { timingSafeEqual } from '../timing-safe-equal.js';
import { s2spErrorToResponse } from './error-response.js';

const encoder = new TextEncoder();

/**
 * What a verified bearer token stands for. The shape of the MCP SDK's `AuthInfo`, so a
 * `/mcp` tool handler finds it as `extra.authInfo`.
 */
export interface BearerAuthInfo {
  /** The token as presented. */
  readonly token: string;
  /** Who the token was issued to. */
  readonly clientId: string;
  /** Its scopes. */
  readonly scopes: string[];
  /** When it expires, in seconds since the epoch; an expired token is refused. */
  readonly expiresAt?: number;
  /** Anything else the verifier wants handlers to see. */
  readonly extra?: Record<string, unknown>;
}

/**
 * Checks a bearer token some other way (JWT, introspection, a database): returns what it stands
 * for, or `undefined` to refuse it. Throwing refuses it too (the error is not sent).
 */
export type TokenVerifier = (
  token: string,
  request: Request,
) => BearerAuthInfo | undefined | Promise<BearerAuthInfo | undefined>;

/** Options for {@link bearerAuth}: static tokens, a verifier, or both. */
export interface BearerAuthOptions {
  /** Tokens accepted as they are (each at least 16 characters), compared in constant time. */
  readonly bearerTokens?: readonly string[];
  /** Called for a token that is not one of `bearerTokens`. */
  readonly verifyToken?: TokenVerifier;
  /** `realm` of the `WWW-Authenticate` challenge. Default `s2sp`. */
  readonly realm?: string;
  /** OAuth protected-resource metadata URL, sent as `resource_metadata` in the challenge (RFC 9728). */
  readonly resourceMetadataUrl?: string;
}

/** The outcome of {@link createBearerCheck}'s check: who is calling, or the 401 to send. */
export type BearerCheck =
  | { readonly ok: true; readonly authInfo: BearerAuthInfo }
  | { readonly ok: false; readonly response: Response };

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** One bearer token an operator configures: the one rule for `auth`, SLOP and their variables. */
export const BearerTokenSchema: z.ZodString = z
  .string()
  .min(16)
  .regex(/^[A-Za-z0-9\-._~+/]+=*$/)
  .meta({ allowed: 'at least 16 characters of A-Z a-z 0-9 - . _ ~ + / (RFC 6750)' });

/**
 * The schema of {@link BearerAuthOptions}, with the list of tokens given (so the edge can add
 * its variable and flag to it).
 *
 * @param bearerTokens - the schema of `bearerTokens`
 */
export function bearerAuthOptionsSchema(
  bearerTokens: z.ZodType<readonly string[] | undefined> = stringList(BearerTokenSchema).optional(),
) {
  return z
    .object({
      bearerTokens,
      verifyToken: z
        .custom<TokenVerifier>((value) => typeof value === 'function')
        .optional()
        .meta({ allowed: 'a function (token, request) => BearerAuthInfo | undefined' }),
      realm: z.string().optional(),
      resourceMetadataUrl: z.string().optional(),
    })
    .refine((auth) => (auth.bearerTokens?.length ?? 0) > 0 || auth.verifyToken !== undefined, {
      message: 'needs bearerTokens, verifyToken or both',
      path: ['bearerTokens'],
    });
}

const BearerAuthOptionsSchema = bearerAuthOptionsSchema();

function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, '')}"`;
}

/**
 * Makes the check behind {@link bearerAuth}, for edges that are not Hono middleware (the MCP
 * endpoint passes the result to the transport as `authInfo`).
 *
 * @throws S2SPError `invalid_config` when neither tokens nor a verifier are given, or a token is short
 */
export function createBearerCheck(
  options: BearerAuthOptions,
): (request: Request) => Promise<BearerCheck> {
  parseOptions(BearerAuthOptionsSchema, options, { factory: 'bearerAuth' });
  const tokens = options.bearerTokens ?? [];
  const digest = (token: string) => encoder.encode(sha256Hex(token));
  const digests = tokens.map(digest);
  const challenge = (error?: string) =>
    [
      `Bearer realm=${quoted(options.realm ?? 's2sp')}`,
      ...(error ? [`error=${quoted(error)}`] : []),
      ...(options.resourceMetadataUrl
        ? [`resource_metadata=${quoted(options.resourceMetadataUrl)}`]
        : []),
    ].join(', ');
  const refuse = (presented: boolean): BearerCheck => ({
    ok: false,
    response: s2spErrorToResponse(
      new S2SPError(
        'unauthorized',
        presented
          ? `Authentication failed: the bearer token is unknown or expired. ${sendBearerToken}`
          : `Authentication required. ${sendBearerToken}`,
      ),
      // Only a presented token gets error="invalid_token" (RFC 6750 §3.1).
      { 'www-authenticate': challenge(presented ? 'invalid_token' : undefined) },
    ),
  });

  return async (request) => {
    const header = request.headers.get('authorization');
    if (header === null) return refuse(false);
    const token = BEARER.exec(header)?.[1];
    if (!token) return refuse(true);
    const presented = digest(token);
    // Every digest is compared (no early exit), so timing says nothing about which one matched.
    let matched = -1;
    digests.forEach((digest, index) => {
      if (timingSafeEqual(digest, presented)) matched = index;
    });
    // The client id names the configured token by position (never the token itself), so
    // per-client quotas keep holders of different tokens apart.
    if (matched >= 0)
      return { ok: true, authInfo: { token, clientId: `bearer-token-${matched + 1}`, scopes: [] } };
    if (options.verifyToken) {
      let info: BearerAuthInfo | undefined;
      try {
        info = await options.verifyToken(token, request);
      } catch {
        info = undefined;
      }
      if (info && (info.expiresAt === undefined || info.expiresAt * 1000 > Date.now()))
        return { ok: true, authInfo: info };
    }
    return refuse(true);
  };
}

/**
 * Hono middleware that requires `Authorization: Bearer <token>`: a configured token, or one the
 * verifier accepts. Anything else gets 401 `unauthorized` with a `WWW-Authenticate: Bearer`
 * challenge. The caller is set on the context as `s2spAuth` ({@link BearerAuthInfo}). Do not put it
 * in front of the data plane: a `resource_url`'s token is its own credential, and consumers do
 * not hold your API tokens.
 *
 * @param options - tokens, verifier, challenge details
 * @throws S2SPError `invalid_config` for options that cannot work
 * @example
 * ```ts
 * app.use('/tools/*', bearerAuth({ bearerTokens: [process.env.API_TOKEN ?? ''] }));
 * ```
 */
export function bearerAuth(options: BearerAuthOptions): MiddlewareHandler {
  const check = createBearerCheck(options);
  return async (c, next) => {
    const result = await check(c.req.raw);
    if (!result.ok) return result.response;
    c.set('s2spAuth' as never, result.authInfo as never);
    await next();
    return undefined;
  };
}
