import {
  type BodyStore,
  concatBytes,
  DATA_PATH_PREFIX,
  DEFAULT_MAX_REQUEST_BYTES,
  HEALTH_PATH,
  isTokenShape,
  parseDataPlaneRequest,
  renderDataPlaneResponse,
  requestedRowIds,
  S2SPError,
  tokenStorageKey,
} from '@s2sp/core';
import { Hono } from 'hono';
import { entryLabel, type Logger, silentLogger } from '../logger.js';
import { methodNotAllowed, notFoundResponse, s2spErrorToResponse } from './error-response.js';
import { readRequestBody } from './request-body.js';

/** Options for {@link createDataPlaneApp} and {@link mountDataPlane}. */
export interface DataPlaneOptions {
  /** Where async-mode tables wait for their redemption. */
  readonly store: BodyStore;
  /** Largest request body accepted, in bytes. Default 1 MiB; larger gets 413. */
  readonly maxRequestBytes?: number;
  /** Where redemptions are logged (never with tokens). Default: silent. */
  readonly logger?: Logger;
}

/** Response bodies up to this size are sent as one buffer. */
const SINGLE_BUFFER_BYTES = 1024 * 1024;

// One body for unknown, expired and used tokens alike, so a 404 says nothing about which.
const GONE =
  'No data for this resource_url: it is unknown, expired or already used. Call the resource tool again for a fresh resource_url.';

function isJson(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

async function readLimited(request: Request, env: unknown, maxBytes: number): Promise<string> {
  const bytes = await readRequestBody(request, env, maxBytes);
  if (!bytes) {
    throw new S2SPError(
      'payload_too_large',
      `The request body is larger than ${maxBytes} bytes. Ask for fewer row_ids per request.`,
    );
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new S2SPError('invalid_request', 'The request body is not valid UTF-8 JSON.');
  }
}

/**
 * Adds the data-plane routes (PROTOCOL §3) to an existing Hono app: `POST /s2sp/data/:token`
 * and `GET /s2sp/health`, with 405s for other methods. Use it to serve the data plane next to
 * your own routes; install {@link s2spErrorToResponse} as the app's error handler too.
 *
 * A request is validated completely (content type, size, JSON, types) before its token is looked
 * up, so a malformed request never uses the token up.
 *
 * Do not put a request logger that prints paths in front of these routes: the path holds a live
 * token.
 *
 * @param app - the app to add routes to
 * @param options - store, limits, logger
 */
export function mountDataPlane(app: Hono, options: DataPlaneOptions): Hono {
  const { store } = options;
  const maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  const logger = options.logger ?? silentLogger;
  if (!Number.isSafeInteger(maxRequestBytes) || maxRequestBytes <= 0) {
    throw new S2SPError(
      'invalid_config',
      `maxRequestBytes must be a positive whole number, got ${String(maxRequestBytes)}.`,
    );
  }

  app.post(`${DATA_PATH_PREFIX}:token`, async (c) => {
    const contentType = c.req.header('content-type');
    const text = await readLimited(c.req.raw, c.env, maxRequestBytes);
    // An empty body counts as {} whatever its type (fetch labels an empty string text/plain).
    if (text.trim() !== '' && !isJson(contentType)) {
      throw new S2SPError(
        'unsupported_media_type',
        'Send the request body as Content-Type: application/json.',
      );
    }
    const request = parseDataPlaneRequest(text);
    const token = c.req.param('token');
    if (!isTokenShape(token)) throw new S2SPError('not_found', GONE);

    const started = Date.now();
    const key = await tokenStorageKey(token);
    const rowIds = requestedRowIds(request);
    const taken = await store.take(key, rowIds);
    if (!taken) {
      logger.debug('data plane: no entry', { entry: entryLabel(key) });
      throw new S2SPError('not_found', GONE);
    }
    const chunks = renderDataPlaneResponse(taken, request, rowIds);
    let length = 0;
    for (const chunk of chunks) length += chunk.byteLength;
    logger.info('data plane: redeemed', {
      entry: entryLabel(key),
      tableRows: taken.tableRows,
      bytes: length,
      ms: Date.now() - started,
    });
    const headers = {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'content-length': String(length),
    };
    // Small bodies go out as one buffer; a large one is streamed chunk by chunk so the cached table
    // bytes are written as they are, never copied into a second buffer of the same size.
    if (length <= SINGLE_BUFFER_BYTES)
      return c.body(concatBytes(chunks) as Uint8Array<ArrayBuffer>, 200, headers);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    return c.body(stream, 200, headers);
  });
  app.all(`${DATA_PATH_PREFIX}:token`, () => methodNotAllowed('POST'));
  app.get(HEALTH_PATH, (c) => c.json({ status: 'ok' }, 200, { 'cache-control': 'no-store' }));
  app.all(HEALTH_PATH, () => methodNotAllowed('GET'));
  return app;
}

/**
 * A Hono app that serves only the S2SP data plane (PROTOCOL §3): `POST /s2sp/data/:token`,
 * `GET /s2sp/health`, and the JSON error shape for everything else. Mount it in your own app or
 * serve it as it is.
 *
 * @param options - store, limits, logger
 * @example
 * ```ts
 * import { serve } from '@hono/node-server';
 * import { createMemoryStore } from '@s2sp/core';
 * import { createDataPlaneApp } from '@s2sp/server/http';
 * serve({ fetch: createDataPlaneApp({ store: createMemoryStore() }).fetch, port: 3001 });
 * ```
 */
export function createDataPlaneApp(options: DataPlaneOptions): Hono {
  const app = new Hono();
  mountDataPlane(app, options);
  app.notFound(notFoundResponse);
  app.onError((error) => s2spErrorToResponse(error));
  return app;
}
