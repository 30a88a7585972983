import { describe, expect, it } from 'vitest';
import { LargeText, textAsBytes } from './large-strings.js';
import { BoundedLineBuffer, cappedFetch, idFromEnds, oversizedLimit } from './result-cap.js';

const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const answer = (id: number, text: string) => ({
  result: { content: [{ type: 'text', text }] },
  jsonrpc: '2.0',
  id,
});

describe('BoundedLineBuffer', () => {
  it('passes lines within the cap, whatever the chunking', () => {
    const buffer = new BoundedLineBuffer(1000, () => {});
    const bytes = Buffer.from(line(answer(1, 'a')) + line(answer(2, 'b')));
    for (let i = 0; i < bytes.length; i += 7) buffer.append(bytes.subarray(i, i + 7));
    expect(buffer.readMessage()).toEqual(answer(1, 'a'));
    expect(buffer.readMessage()).toEqual(answer(2, 'b'));
    expect(buffer.readMessage()).toBeNull();
  });

  it('reads a large answer (its text taken from the bytes), CRLF and chunking included', () => {
    const buffer = new BoundedLineBuffer(8 * 1024 * 1024, () => {});
    const table = JSON.stringify(
      Array.from({ length: 50_000 }, (_, i) => ({ id: i, note: `é "${i}"\t` })),
    );
    const bytes = Buffer.from(`${JSON.stringify(answer(4, table))}\r\n${line(answer(5, 'b'))}`);
    for (let i = 0; i < bytes.length; i += 65_536) buffer.append(bytes.subarray(i, i + 65_536));
    expect(buffer.readMessage()).toEqual(answer(4, table));
    expect(buffer.readMessage()).toEqual(answer(5, 'b'));
    expect(buffer.readMessage()).toBeNull();
  });

  it('hands the first large text block of an answer asked for as bytes over as bytes, once', () => {
    const buffer = new BoundedLineBuffer(8 * 1024 * 1024, () => {});
    const table = JSON.stringify(
      Array.from({ length: 40_000 }, (_, i) => ({ i, s: `é😀 "${i}"\n`, n: [i, { x: null }] })),
    );
    const answer = (id: number) =>
      `${JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: table }] } })}\n`;
    const request = (id: number) => ({ jsonrpc: '2.0' as const, id, method: 'tools/call' });
    textAsBytes.run(true, () => {
      buffer.noteSent(request(1));
      buffer.noteSent(request(2));
    });
    buffer.noteSent(request(3));
    buffer.noteSent({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 2 },
    });
    // Chunks cut inside multi-byte characters and escapes.
    const bytes = Buffer.from(answer(1) + answer(2) + answer(3) + answer(1));
    for (let at = 0; at < bytes.length; at += 65_537)
      buffer.append(bytes.subarray(at, at + 65_537));
    const texts = [1, 2, 3, 4].map(() => {
      const message = buffer.readMessage() as unknown as {
        result: { content: { text: unknown }[] };
      };
      return message.result.content[0]?.text;
    });
    expect(texts[0]).toBeInstanceOf(LargeText);
    expect((texts[0] as LargeText).decode()).toBe(table);
    // Cancelled, not asked for, or answered already: a string.
    expect(texts.slice(1)).toEqual([table, table, table]);
    expect(buffer.readMessage()).toBeNull();
  });

  it('turns a longer line into the error for its id, in order, and reads on', () => {
    const dropped: unknown[] = [];
    const buffer = new BoundedLineBuffer(1000, (id) => dropped.push(id));
    // The id inside the text is escaped, so only the message's own id is found.
    const big = line(answer(7, `"id":99} ${'x'.repeat(5000)}`));
    const bytes = Buffer.from(line(answer(6, 'ok')) + big + line(answer(8, 'after')));
    for (let i = 0; i < bytes.length; i += 512) buffer.append(bytes.subarray(i, i + 512));
    expect(buffer.readMessage()).toEqual(answer(6, 'ok'));
    const error = buffer.readMessage() as { id: number; error: { data: unknown } };
    expect(error.id).toBe(7);
    expect(oversizedLimit(error.error.data)).toBe(1000);
    expect(buffer.readMessage()).toEqual(answer(8, 'after'));
    expect(dropped).toEqual([7]);
  });

  it('finds an id written first, and none in a line without one', () => {
    expect(idFromEnds('{"jsonrpc":"2.0","id":"a-1","result":{', '...}}')).toBe('a-1');
    expect(idFromEnds('{"result":{"rows":[{"id":5}', '{"id":5}]}}')).toBeUndefined();
    expect(oversizedLimit({ s2spOversized: 'guess', limit: 5 })).toBeUndefined();
  });
});

describe('cappedFetch', () => {
  const request = { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'x' }) };
  const respond = (body: string, type: string) => async () =>
    new Response(body, { headers: { 'content-type': type, 'content-length': `${body.length}` } });

  it('replaces a JSON body over the cap with the error for the request id', async () => {
    const body = JSON.stringify(answer(3, 'y'.repeat(5000)));
    const fetchCapped = cappedFetch(1000, respond(body, 'application/json') as typeof fetch);
    const message = (await (await fetchCapped('http://127.0.0.1/mcp', request)).json()) as {
      id: number;
      error: { data: unknown };
    };
    expect(message.id).toBe(3);
    expect(oversizedLimit(message.error.data)).toBe(1000);
    const small = cappedFetch(1000, respond('{"ok":1}', 'application/json') as typeof fetch);
    expect(await (await small('http://127.0.0.1/mcp', request)).json()).toEqual({ ok: 1 });
  });

  it('passes SSE events within the cap and replaces the one over it', async () => {
    const events = `event: message\ndata: {"n":1}\n\nevent: message\ndata: ${'z'.repeat(5000)}\n\nevent: message\ndata: {"n":3}\r\n\r\n`;
    const fetchCapped = cappedFetch(1000, respond(events, 'text/event-stream') as typeof fetch);
    const text = await (await fetchCapped('http://127.0.0.1/mcp', request)).text();
    const data = text
      .split(/\r?\n/)
      .filter((row) => row.startsWith('data: '))
      .map((row) => JSON.parse(row.slice(6)) as Record<string, unknown>);
    expect(data).toHaveLength(3);
    expect(data[0]).toEqual({ n: 1 });
    expect(data[1]?.id).toBe(3);
    expect(oversizedLimit((data[1]?.error as { data?: unknown } | undefined)?.data)).toBe(1000);
    expect(data[2]).toEqual({ n: 3 });
  });
});
