/**
 * Context for BENCHMARKS.md that a run does not measure: the figures issue 19 started from (the
 * Python reference cannot be run here), and where a small fetch's time went (measured separately
 * while the changes were made).
 */
export const APPENDIX: readonly string[] = [
  '## Context: the figures issue 19 started from (given, not measured by this run)',
  '',
  'Measured side by side in one run by the issue’s author (each server its own process, the client in another; rows of ~1.2 KB). The Python reference (`mcp_sd`) cannot be installed on this machine (PyPI is unreachable), so its figures are quoted as given.',
  '',
  '| table | bare node:http floor | memory store | Redis store (0.1) | Python reference |',
  '|---|---:|---:|---:|---:|',
  '| 1k rows, whole table | 4.0 ms | 5.0 ms | 17.0 ms | 16.0 ms |',
  '| 10k rows, whole table | 10.3 ms | 14.3 ms | 115 ms | 167 ms |',
  '| 100k rows, whole table | 54 ms | 48 ms | 849 ms | 1,059 ms |',
  '| 10 selected rows of 1k / 10k / 100k | – | 2.8 / 3.0 / 3.4 ms | 3.9 / 3.9 / 5.0 ms | 1.4 / 2.2 / 14.4 ms |',
  '',
  '## Where a small fetch’s time went',
  '',
  'A 10-row fetch (about 12 KB out) cost ~3 ms on the memory store in the issue’s run, and a bare `node:http` server answering the same bytes ~0.3–0.5 ms. Profiling the data-plane process (`--cpu-prof`, one request at a time from another process) showed two costs that had nothing to do with the rows:',
  '',
  '1. **`tokenStorageKey` through WebCrypto**: `crypto.subtle.digest` runs as a thread-pool job in Node and cost 60–250 µs per call (measured: 60–250 µs against 2–6 µs for `node:crypto`). Core now hashes the 43-character token with a synchronous SHA-256 in plain JavaScript (`packages/core/src/sha256.ts`, checked against WebCrypto at every length 0–300): ~10 µs.',
  '2. **Reading the request body through the Fetch `Request`**: `@hono/node-server` builds an undici `Request`, an `AbortSignal` and a web `ReadableStream` (`Readable.toWeb`) the moment the body is read as a stream. The data plane now reads the body straight from the Node request (`c.env.incoming`) under `@hono/node-server`, with the same size cap, and uses the Fetch body elsewhere.',
  '',
  'Measured together under a load average of ~7–9 (other builds on the 2 cores), one request at a time, median of 300: 10-row fetch 1.07–1.45 ms → 0.49–0.82 ms; a 404 for an unknown token 0.70–1.37 ms → 0.34–0.68 ms; the bare floor 0.22–0.65 ms in the same runs. What remains over the floor is Hono routing, JSON parsing and validation of the request, the store take and building the response headers. On the Redis store a small fetch adds one round trip to Redis (one Lua script reading the rows with `GETRANGE`; the clock offset for the deadline is cached).',
];
