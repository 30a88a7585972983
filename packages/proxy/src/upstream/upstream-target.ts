/**
 * Where the upstream MCP server is, and how to open a transport to it.
 *
 * @module
 */
import {
  getDefaultEnvironment,
  ModernHttpClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from '../mcp-sdk.js';
import { BoundedLineBuffer, cappedFetch } from './result-cap.js';
import { GroupStdioTransport } from './stdio-child.js';

/** An upstream MCP server started as a child process speaking MCP on stdio. */
export interface StdioUpstream {
  readonly kind: 'stdio';
  /** The program to run (`npx`, `node`, `/usr/bin/mcp-server-x`). */
  readonly command: string;
  /** Its arguments. */
  readonly args?: readonly string[];
  /**
   * Its environment. Default: the proxy's own environment, so that credentials given to the
   * proxy (as Claude Desktop's `env` does) reach the server it wraps.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Its working directory. Default: the proxy's. */
  readonly cwd?: string;
}

/** An upstream MCP server reached over Streamable HTTP. */
export interface HttpUpstream {
  readonly kind: 'http';
  /** Its MCP endpoint, `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  /** Headers sent with every request, such as `Authorization`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The upstream MCP server the proxy stands in front of. */
export type UpstreamTarget = StdioUpstream | HttpUpstream;

/**
 * A short label for logs and errors: the command's name or the URL's origin, never arguments,
 * credentials (`user:password@`) or a query string (`?token=…`).
 */
export function describeTarget(target: UpstreamTarget): string {
  if (target.kind === 'http') {
    try {
      return new URL(target.url).origin;
    } catch {
      return 'the upstream URL';
    }
  }
  // Arguments may hold credentials (a postgresql:// URL with a password): never print them.
  return `"${target.command.split('/').at(-1) ?? target.command}"`;
}

/**
 * Removes an upstream URL's secrets from a text that may quote it (an error from `fetch` or the
 * SDK): the whole URL becomes its origin and path, and its password, username and query string
 * are masked wherever they still appear on their own.
 *
 * @param text - a message that may contain the URL
 * @param target - the upstream
 */
export function redactTarget(text: string, target: UpstreamTarget): string {
  if (target.kind !== 'http') return text;
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return text.replaceAll(target.url, 'the upstream URL');
  }
  const safe = `${url.origin}${url.pathname}`;
  let out = text.replaceAll(target.url, safe).replaceAll(url.href, safe);
  // An upstream that echoes request headers in its error quotes the Basic credential: it is the
  // password, base64-encoded.
  const basic = basicCredential(url);
  const secrets = [url.search, url.search.slice(1), url.password, url.username, basic ?? '']
    .flatMap((part) => {
      try {
        return [part, decodeURIComponent(part)];
      } catch {
        return [part];
      }
    })
    .filter((part) => part.length >= 3)
    .sort((a, b) => b.length - a.length);
  for (const secret of secrets) out = out.replaceAll(secret, '…');
  return out;
}

/**
 * The URL to send requests to and the headers to send, with `user:password@` moved into an
 * `Authorization: Basic` header (fetch refuses URLs with credentials, quoting them in its error).
 */
export function httpRequestTarget(target: HttpUpstream): {
  url: URL;
  headers: Record<string, string>;
} {
  const url = new URL(target.url);
  const headers: Record<string, string> = { ...(target.headers ?? {}) };
  if (url.username !== '' || url.password !== '') {
    const hasAuth = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
    const basic = basicCredential(url);
    if (!hasAuth && basic) headers.Authorization = `Basic ${basic}`;
    url.username = '';
    url.password = '';
  }
  return { url, headers };
}

/** The base64 `user:password` of a URL's credentials, as an `Authorization: Basic` header sends it. */
function basicCredential(url: URL): string | undefined {
  if (url.username === '' && url.password === '') return undefined;
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  return Buffer.from(`${user}:${password}`).toString('base64');
}

function processEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) env[key] = value;
  }
  return env;
}

/** An open transport, with the upstream's standard error when it is a child process. */
export interface OpenedTransport {
  readonly transport: Transport;
  /** The last few kilobytes the child wrote to standard error, for start-up failures. */
  readonly stderrTail: () => string;
}

/** The byte cap on one upstream answer (see result-cap). */
export interface AnswerCap {
  /** The most bytes one answer (a JSON body, an SSE event, a stdio line) may have. */
  readonly maxBytes: number;
  /** Told of each answer dropped for its size, with its request id when found. */
  readonly onDropped: (id: string | number | undefined) => void;
}

/**
 * Creates (but does not start) a transport to `target`.
 *
 * @param target - the upstream
 * @param onStderr - receives the child's standard error; the proxy passes it on to its own
 * @param cap - the byte cap on one answer: a larger one fails only its own request
 * @param sdk - the client that will use it: SDK v1 (2025 era) or v2 (negotiating)
 */
export function openTransport(
  target: UpstreamTarget,
  onStderr: (chunk: string) => void,
  cap: AnswerCap,
  sdk: 1 | 2 = 1,
): OpenedTransport {
  if (target.kind === 'http') {
    const { url, headers } = httpRequestTarget(target);
    const init = { requestInit: { headers }, fetch: cappedFetch(cap.maxBytes) };
    return {
      // SDK v2's transport carries the 2026-07-28 headers its client negotiates; the same shape.
      transport:
        sdk === 1
          ? new StreamableHTTPClientTransport(url, init)
          : (new ModernHttpClientTransport(url, init) as unknown as Transport),
      stderrTail: () => '',
    };
  }
  // The read buffer caps each line: a longer one is dropped alone, never closing the transport
  // (which would restart the upstream for every caller).
  const lines = new BoundedLineBuffer(cap.maxBytes, cap.onDropped);
  const transport = new GroupStdioTransport(
    {
      command: target.command,
      args: target.args ?? [],
      env: { ...getDefaultEnvironment(), ...(target.env ?? processEnvironment()) },
      ...(target.cwd !== undefined && { cwd: target.cwd }),
    },
    lines,
  );
  // The line buffer learns which answers are wanted as bytes from the requests as they go out.
  const send = transport.send.bind(transport);
  transport.send = (message) => {
    lines.noteSent(message);
    return send(message);
  };
  let tail = '';
  transport.stderr.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    tail = (tail + text).slice(-2000);
    onStderr(text);
  });
  return { transport, stderrTail: () => tail.trim() };
}
