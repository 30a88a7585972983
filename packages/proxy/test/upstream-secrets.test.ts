import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createS2SPProxy } from '../src/index.js';
import { redactTarget } from '../src/upstream/upstream-target.js';

const SECRETS = ['s3cr3t-pa55word', 'tok-0123456789abcdef', 'upstream-user'];

describe('upstream URL credentials', () => {
  it('sends user:password as Basic auth and keeps credentials and the query out of errors and logs', async () => {
    const seen: IncomingMessage[] = [];
    const upstream = createServer((req, res) => {
      seen.push(req);
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":"unauthorized"}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const { port } = upstream.address() as AddressInfo;
    const lines: string[] = [];
    const log = (level: string) => (message: string, fields?: object) =>
      lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
    const proxy = createS2SPProxy({
      upstream: {
        kind: 'http',
        url: `http://upstream-user:s3cr3t-pa55word@127.0.0.1:${port}/mcp?token=tok-0123456789abcdef`,
      },
      timeoutSeconds: 5,
      logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    });
    const error = (await proxy.start().catch((e: unknown) => e)) as Error;
    await proxy.close();
    upstream.close();
    expect(error).toBeInstanceOf(Error);
    expect((error as { code?: string }).code).toBe('unavailable');
    expect(error.message).toContain(`http://127.0.0.1:${port}`);
    // The request reached the upstream with the credentials as a header and the query intact.
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from('upstream-user:s3cr3t-pa55word').toString('base64')}`,
    );
    expect(seen[0]?.url).toBe('/mcp?token=tok-0123456789abcdef');
    const everything = [
      error.message,
      String((error as { cause?: unknown }).cause ?? ''),
      ...lines,
    ];
    for (const secret of SECRETS) {
      for (const text of everything) expect(text).not.toContain(secret);
    }
  });

  it('an unreachable upstream URL with credentials: no secret in the error', async () => {
    const url = 'http://upstream-user:s3cr3t-pa55word@127.0.0.1:9/mcp?token=tok-0123456789abcdef';
    const proxy = createS2SPProxy({
      upstream: { kind: 'http', url },
      timeoutSeconds: 5,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
    });
    const error = (await proxy.start().catch((e: unknown) => e)) as Error;
    await proxy.close();
    expect((error as { code?: string }).code).toBe('unavailable');
    for (const secret of SECRETS) expect(error.message).not.toContain(secret);
  });

  it('redactTarget masks the URL, its password, user and query wherever they appear', () => {
    const target = {
      kind: 'http' as const,
      url: 'http://upstream-user:s3cr3t-pa55word@h.example/mcp?token=tok-0123456789abcdef',
    };
    expect(redactTarget(`Request to ${target.url} failed`, target)).toBe(
      'Request to http://h.example/mcp failed',
    );
    expect(redactTarget('bad password s3cr3t-pa55word, token=tok-0123456789abcdef', target)).toBe(
      'bad password …, …',
    );
    // An upstream echoing the Authorization header it got: the Basic credential is the password.
    const basic = Buffer.from('upstream-user:s3cr3t-pa55word').toString('base64');
    expect(redactTarget(`bad credentials (Basic ${basic})`, target)).toBe(
      'bad credentials (Basic …)',
    );
    expect(redactTarget('nothing here', { kind: 'stdio', command: 'x' })).toBe('nothing here');
  });
});
