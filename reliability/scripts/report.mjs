#!/usr/bin/env node
// The reliability figures as Markdown, from records only. Plain Node ESM, no build.
//
// The tests record each figure (`src/figures.ts`) and the global setup describes the run
// (`results/run.json`). This script renders those records; it never measures.
//
//   node reliability/scripts/report.mjs [--soak]
//       the last run (results/figures.jsonl, with --soak figures.soak.jsonl) → results/RELIABILITY.md
//       (RELIABILITY.soak.md): what that run measured, to look at before recording it
//   node reliability/scripts/report.mjs --record [--soak] [--sections=1,35]
//       copies the named sections of the last run (default: every section it recorded) into
//       reliability/raw/<section>.json, each with the run it came from, then regenerates the
//       committed RELIABILITY.md from reliability/raw/ — one section re-measured, the others kept
//   node reliability/scripts/report.mjs --publish
//       regenerates RELIABILITY.md from reliability/raw/ alone (`pnpm figures` does this and the
//       benchmarks' file; `pnpm test` fails when the committed file differs from it)
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { labelRuns, runAsProgram, sameRun, timeSpan } from '../../scripts/run-info.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = join(here, '..');
const repoRoot = join(packageDir, '..');

/** The folder of committed raw results, one `<section>.json` per section. */
export const RELIABILITY_RAW_DIR = join(packageDir, 'raw');
/** The committed file generated from {@link RELIABILITY_RAW_DIR}. */
export const RELIABILITY_FILE = join(repoRoot, 'RELIABILITY.md');
/** The command that regenerates the committed file, as the header and the check cite it. */
export const RELIABILITY_COMMAND = 'pnpm figures';

/** The issue's figure groups, in order, with how each is measured. */
const GROUPS = {
  1: {
    title: 'Single use across replicas',
    how: 'One token, many concurrent `POST /s2sp/data/{token}` at once, spread over data-plane replicas that are separate OS processes running the built packages (`test/fixtures/replica.mjs`), sharing one store. Connections are opened before each trial so the requests arrive together. A deliberately racy store (read, then delete) runs through the same harness as a negative control and must be caught.',
  },
  2: {
    title: 'Race interleavings (fast-check scheduler)',
    how: 'fast-check’s `fc.scheduler()` decides the order in which concurrent redemptions start and finish inside the data plane (`app.request()` on the memory store); no take is released until all have arrived, so every order is reachable. The racy store must fail the same property.',
  },
  3: {
    title: 'Sequential reuse',
    how: 'Redeem, wait, redeem again; the second answer is compared — status, every header, body bytes — with the answer for a token that never existed. Memory store on fake time (`vi.useFakeTimers`), Redis in real time.',
  },
  4: {
    title: 'Validate before redeem',
    how: 'fast-check request bodies against one live token through the full server app (`app.request()`, 64 KiB request limit): any JSON, wrong member types, huge arrays, deep nesting, non-JSON, raw bytes, odd content types, oversize bodies, lying Content-Length, and valid requests. After every 4xx the token must still be in the store; after every 1000th it is redeemed for real.',
  },
  5: {
    title: 'TTL bounds',
    how: 'Memory store on fake time with the default-style 600 s TTL; Redis with a short real TTL, its `PTTL` read right after the tool call. "At TTL−1 s" is measured from the start of the minting call, "at TTL+1 s" from its end, so neither can pass by luck.',
  },
  6: {
    title: 'Reclamation without traffic',
    how: '1000 entries with a 500 ms TTL, never read. Memory store in a fresh `node --expose-gc` process (heap + external after full GCs, after a warm-up round); Redis: `DBSIZE` (which still counts expired keys Redis has not freed) and `used_memory`.',
  },
  7: {
    title: 'Redis refused',
    how: 'A replica process on Redis; Redis is SIGKILLed so connections are refused. Tool calls through the official MCP SDK client, redemptions over HTTP (10 in flight). The replica must keep running.',
  },
  8: {
    title: 'Redis hung (SIGSTOP)',
    how: 'Redis is frozen with SIGSTOP (connections stay open, nothing answers) under a replica with a 1000 ms command timeout; two waves of concurrent redemptions, then SIGCONT.',
  },
  9: {
    title: 'Recovery after a Redis crash',
    how: 'Redis (append-only file, fsync always) is SIGKILLed, stays down for the outage, and is restarted; fresh tokens are redeemed every 20 ms from the restart until one succeeds. Every token whose redemption failed during the outage is redeemed afterwards. Then what cannot be promised: the gaps between a replica’s reconnect attempts while Redis is down (a stand-in listener on Redis’s port notes each attempt; soak run only), and a redemption whose reply a loopback TCP proxy drops after Redis ran the take.',
  },
  10: {
    title: 'Replica restart',
    how: 'Tokens minted through replica A’s resource tool with the MCP SDK client; A is SIGKILLed; each token is redeemed three times concurrently through replica B.',
  },
  11: {
    title: 'SSRF corpus in the consumer',
    how: 'Each crafted `resource_url` is passed to a real consumer tool over MCP (official SDK client, Streamable HTTP). The consumer’s allow-list names one loopback canary; a second loopback canary is forbidden. Both count TCP connections; the consumer’s `fetch` records every call. A process-wide loopback guard refuses any connection to a non-loopback address, so no validation bug can reach 169.254.169.254 for real.',
  },
  12: {
    title: 'Redirects and public destinations only',
    how: 'A loopback server answers with redirects to the forbidden canary, to consumers with and without an allow-list. A consumer with `consumer.publicOnly: true` and no allow-list is given private, loopback, link-local, CGNAT, multicast and IPv4-mapped/NAT64/6to4 destinations.',
  },
  13: {
    title: 'Consumer bounds',
    how: 'Loopback servers that stream past the 1 MiB response cap (bytes counted by write callbacks on the server), trickle one byte per second (raw TCP), or answer with bodies carrying an injected instruction; through the consumer tool over MCP, and fuzzed through `fetchBody`.',
  },
  14: {
    title: 'Token hygiene',
    how: 'A million `generateToken()` calls; then a debug-level run of two resource servers (Redis and memory stores), a consumer and an agent through every outcome (200, 400, 404, 413, 415, malformed URLs, a Redis crash), after which every log line, error message, HTTP body, Redis key and value, Redis RDB and AOF file, memory-store key and table, and the process’s own stdout/stderr is searched for every issued token and resource_url. The advertised base URL is checked against forged `Host` headers in process (`app.request`) and on a real socket.',
  },
  15: {
    title: 'Load and soak',
    how: 'autocannon (as a library) against a replica process on the memory store; every request redeems a fresh token for 10 rows of a 10k-row table. Each entry holds its own copy of the table (~0.5 MB), so tokens are minted in waves between load phases rather than all up front; latency is taken from every response. The soak runs at a fixed rate while the replica mints in the background, as a real server would.',
  },
  20: {
    title: 'Browsers and DNS rebinding at the HTTP edge',
    how: 'A server with a resource tool that counts its runs, SLOP and A2S mounted, on a loopback port. Requests are sent over a real socket with node:http, which sets `Host`, `Origin` and `Sec-Fetch-Site` exactly as a rebinding or cross-site page would, and from real headless Chromium (Debian’s, through playwright-core): a page on a second loopback origin fires no-cors fetches and a text/plain form post at SLOP, `/mcp` and a live `resource_url`.',
  },
  21: {
    title: 'Authentication over the whole server',
    how: 'The same server with `auth: { bearerTokens, verifyToken }`. Every endpoint but the data plane is asked without a token, with a wrong one, a Basic credential and a token one character too long, then with the configured token and one only the verifier accepts; a `resource_url` minted with a token is redeemed without one.',
  },
  22: {
    title: 'Request bodies at the edge',
    how: 'Data-plane bodies of non-JSON whitespace and of every non-JSON content type against fresh tokens, each followed by a proper redemption of the same token; 64 MiB chunked bodies streamed to SLOP and `/mcp`; raw TCP clients that send headers and then one byte a second to the data plane, SLOP and `/mcp`.',
  },
  23: {
    title: 'The proxy as a gateway',
    how: '`@s2sp/proxy` in front of the stdio fixture upstream (`packages/proxy/test/fixtures/table-server.mjs`) on a loopback port. Clients are told apart by their socket address (raw `node:http` with `localAddress` 127.0.0.1 and 127.0.0.2) or by bearer token (two `S2SP_AUTH_TOKENS`, the official MCP SDK client). The model-facing texts are measured on `@s2sp/server`’s shared result builder (`createS2SP().resourceResult`), which the proxy calls, with `estimateTokens` (o200k, estimated). Rows 23.6–23.9 add the byte cap on upstream answers (the `s2sp-proxy` program in a child process, its `VmHWM` read from /proc, before a raw `node:http` upstream that streams its answers), two SDK clients on one proxy in front of `packages/proxy/test/fixtures/notify-server.mjs`, and filters on the fixture’s 100,000-row table. Rows 23.10–23.13 (`reliability/test/proxy-trust.test.ts`) add `@modelcontextprotocol/server-postgres` before a throwaway PostgreSQL cluster for a real `SELECT … AS "<text>"`, binds on 127.0.0.2 and 0.0.0.0, 1,000 raw slow sockets, and the `s2sp-proxy` program run with credentials in `--upstream-url`.\n\nIssue 26’s probe table, row by row, and the figure that answers it:\n\n| Probe | A trusted gateway | Figure |\n|---|---|---|\n| Bound to any address but the three loopback names: foreign Host and Origin | 403, as the servers | 23.11 (127.0.0.2, 0.0.0.0); 20.5 on loopback |\n| Authentication | bearer tokens / a verifier, like `S2SP_AUTH_TOKENS` | 21.3 (the verifier is the same edge option: 21.1–21.2) |\n| Slow request body on `/mcp` / slow headers | 408 in ~10 s; 1,000 slow connections not all held | 22.6 (2 s timeout), 23.12 (default 10 s, 1,000 at once) |\n| 110 `initialize` requests from one client | others still served | 23.1 |\n| Per-client entry quota | per client, entries and bytes | 23.2 |\n| Async result with 20,000 long column names, or one 2 MiB abstract cell | within the token budget or `payload_too_large` | 23.3 |\n| The unknown-column error on that table | short, labelled | 23.3 |\n| An upstream log message caused by session A | to A only; log level per session | 23.8 |\n| Column names one client’s query produced (`SELECT … AS "<text>"`) | seen by that client only | 23.10 |\n| An upstream result over the stdio buffer | refused for that caller, no restart | 23.6 |\n| An HTTP upstream returning 200 MB, 12 calls at once | capped | 23.7 |\n| A `filter` with 500 long `in` values on 100,000 rows, in a batch of 8 | bounded | 23.9 |\n| Two apps on one Redis | kept apart (key prefix) | 23.5 |\n| `--upstream-url http://user:password@…` | secret kept out of logs | 23.13 |',
  },
  30: {
    title: 'Consumer safe by default',
    how: 'A consumer tool with default settings (no allow-list, no options), called by the official MCP SDK client over Streamable HTTP, is handed loopback, private, link-local, local-only and special-purpose IPv6 destinations; a loopback canary counts connections. Then, with allow-lists naming loopback servers: attacker-chosen path prefixes, a port scan (closed port, SSH banner, Redis-like reply, reset, silent port — the error texts compared with the port masked), and gzip bombs (64 MiB of JSON whitespace, 64 KiB on the wire).',
  },
  31: {
    title: 'Consumer work per request',
    how: 'Raw JSON-RPC batches of consumer calls POSTed to `/mcp` (default `maxMcpBatchSize` 10) against a loopback data plane that holds each request 100 ms and counts how many are in flight at once; `isPublicAddress` against the special-purpose ranges of the issue and the IANA IPv4/IPv6 registries, with public controls.',
  },
  32: {
    title: 'row_ids and store quotas',
    how: 'A data plane on a real `redis-server` (in process, `app.request()`): oversized `row_ids` requests, then Redis `SLOWLOG` with every command logged during the largest accepted request. 1 000 zero-row async calls through MCP; empty tables put into 10 MiB budgets (memory and Redis) until `store_full`; one MCP client (one socket address) making async calls with default settings, then a second client from another address (`::1`).',
  },
  33: {
    title: 'Retry-safe redemption',
    how: 'A data plane (memory store) on a loopback port behind a loopback TCP proxy (`startFaultProxy` in `@s2sp/test-utils`) that, for 10 % of the requests (a seeded draw), resets the connection at the first byte of the answer or passes the headers and half of the body and closes — always after the data plane has taken the entry. Redemptions of 3 of 5 rows through `fetchBody`, 64 in flight, each checked against its own rows; the proxy faults any one `Idempotency-Key` at most 3 times (the retry budget), so the figure measures whether a retry gets the rows, not the odds of four faults in a row. Then the same without retries. Then a Redis store: every first reply dropped, Redis SIGKILLed and restarted, each redemption repeated with its key.',
  },
  34: {
    title: 'Graceful shutdown',
    how: 'Two replica processes (`test/fixtures/replica.mjs`, SIGTERM handled by `stopOnSignals` from `@s2sp/server/node`, as the apps and `s2sp-proxy` do) on one `redis-server`. A load balancer in the test process sends each redemption to replica A, and to B once A refuses a connection or answers 503 with `Retry-After`; A gets the signal when a third of the tokens are redeemed. A redemption is lost when it ends in a connection error or a truncated body; each lost one is retried on B to see whether its rows were consumed.',
  },
  36: {
    title: 'Third attack pass: the SQL consumer and retries',
    how: "The `s2sp-sql-consumer` program (`apps/sql-consumer/dist/main.js`) in a child process, called by two official MCP SDK clients told apart by bearer token (two `S2SP_AUTH_TOKENS`), with inline `body_data` tables; its own peak memory (`VmHWM`) read from /proc, and its query processes found by their parent pid and sampled every 10 ms. Then a resource server (`createS2SPServer`, `ttlSeconds` 5) on the memory store and on a real `redis-server`, redeemed with an `Idempotency-Key` by `fetch`.\n\nIssue 37’s rows, and the figure that answers each:\n\n| # | Probe | A trusted system | Figure |\n|---|---|---|---|\n| 2 | `list_sort(range(30000000))`, `repeat('x', 1e9)` with `SQL_MEMORY_LIMIT_MB=256` | the limit holds for the process, or the README says what bounds it | 36.1 |\n| 3 | `SELECT * FROM range(3e9)` past `SQL_TIMEOUT_MS` | an error with a time-out code, never an answer that looks complete | 36.2 |\n| 5 | 8 inline tables of 255 columns named with 254 characters | every text within `SQL_TOKEN_BUDGET`, column lists capped and labelled | 36.3 |\n| 6 | one client keeps 10 heavy queries in flight | slots per client | 36.4 |\n| 7 | unqualified `pg_settings` and 9 more `pg_catalog` views; `current_setting` | refused | 36.5 |\n| 4 | `as_table` answers of one client | per-client bytes by default | 36.6 |\n| 12 | a keyed take 4 s into a 5 s TTL | a retry never outlives the `resource_url`’s TTL | 36.7 (memory), 36.8 (Redis) |\n| 13 | a repeated keyed redemption | does not extend what the client is charged | 36.7, 36.8 (the client’s next call) |",
  },
  37: {
    title: 'Fourth attack pass: one client, one upstream session',
    how: "`reliability/test/proxy-clients.test.ts`: `@s2sp/proxy` in this process before the stateful relay fixture (`packages/proxy/test/fixtures/relay-server.mjs`: `remember`, `recall`, `sample_later`) on stdio, two official MCP SDK v1 clients told apart by bearer token; a raw `fetch` with one client's `mcp-session-id` and the other's token; SDK v2 clients pinned to 2026-07-28 opening `subscriptions/listen` streams until refused; the `s2sp-proxy` program in a child process (`VmHWM` sampled every 20 ms from /proc) with an empty credential list and with `--config` naming a FIFO, `/dev/zero` and a link to a file whose one line is a secret key. Each probe records what it saw before it asserts, so the same file run on an older commit records that commit's figure.",
  },
};

const RESIDUAL_RISKS = `## Residual risks the tests cannot remove

- **Redis replication is asynchronous.** A redemption is acknowledged by the Redis primary before
  its replicas have the delete. If the primary fails over in that window, a replica that never saw
  the delete is promoted and the consumed token is live again until its TTL runs out: it can be
  redeemed a second time. \`WAIT\` narrows the window but does not close it (Redis can still lose
  acknowledged writes on failover). Single use is exact on one Redis node and on a Cluster whose
  masters do not fail over (figure 1); across a failover a token can be redeemed once on the old
  primary and once more on the new one. Keep TTLs short; where that matters, run Redis without
  automatic failover.
- **A redemption whose reply is lost is ambiguous.** When the take ran in Redis but its answer
  never reached the data plane (a connection cut on the way back), the data plane cannot know
  that the token was consumed. It answers 503 \`unavailable\` and never retries the take itself: a
  server-side retry could not tell "used by me" from "used by someone else". The take carries a
  Redis-clock deadline, so a command that reaches Redis late changes nothing (figure 8); only an
  answer lost on the way back stays ambiguous, and then the client's retry gets 404 for rows it
  never received (figure 9.4) and must call the resource tool again; the 503 says so rather than
  promising the token is unused (figure 9.5). Between the data plane and its consumer, a lost
  answer is covered by retry-safe redemption (PROTOCOL §7.10, figure 33) for consumers that send
  an \`Idempotency-Key\` (\`fetchBody\` does): the retry gets the same rows within 60 s. A
  consumer without it (the Python reference) still loses them, and on Redis without persistence
  a Redis crash in the window loses them too.
- **A pipelined redemption followed by garbage looks failed but was served.** HTTP/1.1 lets a
  client send a valid redemption and, on the same connection before the answer, bytes that are not
  a request. The data plane redeems the first (the token is used up, its 200 is written), then the
  server answers the garbage with 400 and closes the connection. A client that reads only the last
  answer, or loses the connection before reading the 200, sees a failure while its token is gone —
  the same lost-reply case as above, from the client's side: retrying gets 404 and the resource
  tool must be called again. Clients should not pipeline redemptions; one request per connection
  (or HTTP/2) removes the case.
- **Authentication covers /mcp, SLOP and A2S, not the data plane.** A \`resource_url\` is a bearer
  capability by design: whoever holds it can redeem it once within its TTL, with or without the
  server's API tokens. Keep TTLs short and \`resource_url\`s out of logs.
- **The memory store is per process.** Its single use is exact within one process; it says nothing
  about replicas (use a shared store) and loses every entry when the process exits.
- **Loopback only.** Every figure was measured on one machine over 127.0.0.1; real networks add
  latency, loss and middleboxes (proxies that log URLs — the token is in the path — or follow
  redirects) that these tests do not model.
- **The allow-list is the SSRF boundary.** Listed origins are fetched whatever their address
  (loopback included), at exactly \`/s2sp/data/{token}\` or under a prefix the operator listed, so
  an allowed origin must be trusted as a whole. Without a list the default (\`destinations:
  'public'\`) refuses non-public addresses — IP literals, every resolved address and the connected
  socket — but anything on the public internet is reachable; \`destinations: 'any'\` turns that off.
- **Network failures look alike, but not their timing.** Every network-level failure gives one
  error (figure 30.4), yet a refused connection fails at once and a silent port only at the
  timeout, so a caller who times the tool can still tell them apart; with the default (public
  destinations only) that only matters for allow-listed or public hosts.
- **Per-client quotas are per process and per address.** \`maxEntriesPerClient\` counts the
  authenticated client, else the socket address \`/mcp\` saw, else the MCP session: clients behind
  one NAT or proxy share a bucket, a client with many addresses (an IPv6 /64) gets many, and each
  replica counts its own. The byte budget and \`maxEntries\` remain the global bound.
- **A 400 for too many row_ids tells a token holder the table is smaller.** It is answered without
  using the token, and only to someone who holds the token (and could redeem it) anyway.
- **A consumer \`filter\` may name body columns, and the answer's counts then depend on them.** The
  hand-off filter (PROTOCOL §7.4) runs on the fetched rows, and a consumer cannot tell which of
  their columns were abstract, so a model can learn how many rows match a condition on a body
  column (\`draw_chart\`'s \`rows_charted\`) — a count, never a value, once per \`resource_url\`.
- **\`include_image\` shows bars, not body labels.** The inline PNG labels the bars of body columns
  by rank (\`#1\`, \`#2\`, …) because a vision model reads labels; bar lengths (counts) remain, as in
  the text summary. The chart's page (\`chart_url\`) is for people and shows every label.
- **A query's memory is sampled, not reserved.** The SQL consumer's query process reads its own
  resident memory every 5 ms and is killed once it has grown \`SQL_MEMORY_LIMIT_MB\` past its
  loaded tables (figure 36.1): what one step allocates before the next reading (a large string
  being filled) can pass the limit by that much, and the process holds its tables besides.
- **Timing figures are from one 2-core machine.** They show the shape (fail fast, bounded, no hang)
  rather than guarantees for other hardware; the CI run asserts only generous bounds.
`;

/** What a size means for the figures of a section. */
const SIZES = {
  soak: 'soak size (`SOAK=1`: the full sizes, the strict bounds asserted)',
  ci: 'CI size (smaller sizes; timing bounds recorded, only generous ones asserted)',
};

const cell = (value) =>
  String(value ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ');

function formatValue(figure) {
  const value =
    typeof figure.value === 'number' ? figure.value.toLocaleString('en-US') : figure.value;
  return figure.unit ? `${value} ${figure.unit}` : String(value);
}

function metCell(figure) {
  if (figure.met === undefined) return '—';
  return figure.met ? '✅' : '❌ not met';
}

const idOrder = (id) => String(id).split('.').map(Number);
const byId = (a, b) => {
  const [a1, a2] = idOrder(a.id);
  const [b1, b2] = idOrder(b.id);
  return a1 - b1 || a2 - b2;
};
const sectionOf = (figure) => Number(String(figure.id).split('.')[0]);

/** A list of section numbers with consecutive ones collapsed: 1–15, 20, 22. */
function ranges(numbers) {
  const out = [];
  for (const n of numbers) {
    const last = out.at(-1);
    if (last && last[1] === n - 1) last[1] = n;
    else out.push([n, n]);
  }
  return out.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(', ');
}

function machine(run) {
  const m = run.machine;
  return `Node ${m.node} · ${m.platform} · ${m.cpu} × ${m.cores} cores · ${m.ramGiB} GiB RAM · redis-server ${m.redis}`;
}

/**
 * Reads the raw folder: one `{ section, run, figures }` per `<section>.json`, by section number.
 *
 * @param {string} [dir]
 */
export function readReliabilityRaw(dir = RELIABILITY_RAW_DIR) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')))
    .sort((a, b) => a.section - b.section);
}

/**
 * RELIABILITY.md from section records alone: the same records give the same bytes (nothing here
 * reads the clock, the machine or the checkout).
 *
 * @param {{ section: number, run: object, figures: object[] }[]} sections
 * @param {{ source?: string }} [options] where the records are, for the header
 */
export function renderReliability(sections, { source = 'reliability/raw/<section>.json' } = {}) {
  const ordered = [...sections].sort((a, b) => a.section - b.section);
  const { runs, label } = labelRuns(ordered.map((r) => r.run));
  const figures = ordered.flatMap((s) => s.figures);
  const withTarget = figures.filter((f) => f.met !== undefined);
  const met = withTarget.filter((f) => f.met);

  const lines = [];
  lines.push('# S2SP reliability and security figures');
  lines.push('');
  lines.push(
    `What a capability-URL system should publish, measured on this implementation: a \`resource_url\` works once, within its TTL, for whoever the agent handed it to, and nothing else — stricter than S3/GCS signed URLs (reusable until they expire), like OAuth authorization codes (refused on reuse, short-lived). Every number below was recorded by a test in \`reliability/test/\`, with the target it was judged against as the test wrote it, during the run its section names. This file is generated from the raw records in \`${source}\` by \`${RELIABILITY_COMMAND}\` (\`reliability/scripts/report.mjs\`), not written by hand; \`pnpm test\` fails when it differs from what the command makes. Comparisons made by hand (before and after a change, across commits) are in \`reliability/NOTES.md\`, not here.`,
  );
  lines.push('');
  lines.push(
    `**${met.length} of ${withTarget.length}** figures with a target met it. A ❌ below is a measured miss, not a missing measurement.`,
  );
  lines.push('');
  lines.push(
    'Re-measure: `pnpm build && SOAK=1 npx vitest run --project reliability` (about 15 minutes; without `SOAK=1` the same tests run at CI size in about a minute and assert only generous timing bounds; `SOAK_MINUTES=2` shortens the soak), then `node reliability/scripts/report.mjs --record --soak` to record every section of that run, or `--sections=9,33` to record only those and keep the others. Run the test files of one section alone (`… --project reliability reliability/test/redis-outages.test.ts`) to re-measure it without the rest.',
  );
  lines.push('');
  lines.push('## Runs');
  lines.push('');
  lines.push(
    '| Run | Sections | Size | Commit | Started → ended (UTC) | Load average (1, 5, 15 min) at start → end | Command |',
  );
  lines.push('|---|---|---|---|---|---|---|');
  for (const run of runs) {
    const numbers = ordered.filter((s) => sameRun(s.run, run)).map((s) => s.section);
    lines.push(
      `| ${label(run)} | ${ranges(numbers)} | ${run.size} | ${run.commit}${run.dirty ? ' + uncommitted changes' : ''} | ${timeSpan(run.startedAt, run.endedAt)} | ${run.loadAverage.start.join(', ')} → ${(run.loadAverage.end ?? []).join(', ')} | \`${cell(run.command)}\` |`,
    );
  }
  lines.push('');
  const machines = [...new Set(runs.map(machine))];
  for (const m of machines) {
    const on = runs.filter((run) => machine(run) === m).map(label);
    lines.push(`**Machine** (${on.join(', ')}): ${m}`);
    lines.push('');
  }

  for (const [number, group] of Object.entries(GROUPS)) {
    const section = ordered.find((s) => s.section === Number(number));
    lines.push(`## ${number}. ${group.title}`);
    lines.push('');
    lines.push(group.how);
    lines.push('');
    if (!section || section.figures.length === 0) {
      lines.push(`_Not recorded: no raw results for this section (\`${number}.json\`)._`);
      lines.push('');
      continue;
    }
    lines.push(
      `_Run ${label(section.run)}, ${SIZES[section.run.size] ?? `${section.run.size} size`}._`,
    );
    lines.push('');
    lines.push('| # | Figure | Value | Target | Met |');
    lines.push('|---|---|---|---|---|');
    for (const figure of [...section.figures].sort(byId))
      lines.push(
        `| ${figure.id} | ${cell(figure.title)} | ${cell(formatValue(figure))} | ${cell(figure.target ?? '')} | ${metCell(figure)} |`,
      );
    lines.push('');
  }

  for (const section of ordered.filter((s) => !(s.section in GROUPS))) {
    lines.push(`## ${section.section}. (a section report.mjs does not list)`);
    lines.push('');
    lines.push(`_Run ${label(section.run)}._`);
    lines.push('');
    for (const figure of [...section.figures].sort(byId))
      lines.push(`- ${figure.id} ${figure.title}: ${formatValue(figure)}`);
    lines.push('');
  }

  lines.push(RESIDUAL_RISKS);
  return `${lines.join('\n').trimEnd()}\n`;
}

/**
 * The last run's records as sections: its figures (JSON lines) split by section, each with the run.
 *
 * @param {boolean} soak whether to read the soak run's files
 */
export function readLastRun(soak) {
  const results = join(packageDir, 'results');
  const figuresFile = join(results, soak ? 'figures.soak.jsonl' : 'figures.jsonl');
  const runFile = join(results, soak ? 'run.soak.json' : 'run.json');
  const how = `run the reliability tests first (${soak ? 'SOAK=1 ' : ''}npx vitest run --project reliability)`;
  if (!existsSync(figuresFile)) throw new Error(`${figuresFile} does not exist: ${how}.`);
  if (!existsSync(runFile))
    throw new Error(`${runFile} does not exist (a run from before runs were described): ${how}.`);
  const run = JSON.parse(readFileSync(runFile, 'utf8'));
  const figures = readFileSync(figuresFile, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
  if (figures.length === 0) throw new Error(`${figuresFile} is empty: the tests recorded nothing.`);
  const bySection = new Map();
  for (const { mode: _mode, ...figure } of figures) {
    const n = sectionOf(figure);
    if (!bySection.has(n)) bySection.set(n, []);
    bySection.get(n).push(figure);
  }
  return [...bySection.entries()]
    .sort(([a], [b]) => a - b)
    .map(([section, list]) => ({ section, run, figures: list.sort(byId) }));
}

/**
 * Copies sections of the last run into the raw folder.
 *
 * @param {{ soak: boolean, sections?: number[], rawDir?: string }} options
 * @returns {number[]} the sections written
 */
export function recordLastRun({ soak, sections, rawDir = RELIABILITY_RAW_DIR }) {
  const measured = readLastRun(soak);
  if (!measured[0].run.endedAt)
    throw new Error('the last run has not finished (results/run.json has no end): wait for it.');
  const wanted = sections ?? measured.map((s) => s.section);
  const missing = wanted.filter((n) => !measured.some((s) => s.section === n));
  if (missing.length > 0)
    throw new Error(
      `the last run recorded no figure of section ${missing.join(', ')}: run its test file, then record again.`,
    );
  mkdirSync(rawDir, { recursive: true });
  for (const section of measured.filter((s) => wanted.includes(s.section)))
    writeFileSync(join(rawDir, `${section.section}.json`), `${JSON.stringify(section, null, 2)}\n`);
  return wanted;
}

function main(argv) {
  const soak = argv.includes('--soak');
  const sectionsArg = argv.find((a) => a.startsWith('--sections='));
  if (argv.includes('--record')) {
    const sections = sectionsArg?.slice('--sections='.length).split(',').map(Number);
    const written = recordLastRun({ soak, sections });
    process.stdout.write(`recorded section ${written.join(', ')} in ${RELIABILITY_RAW_DIR}\n`);
  }
  if (argv.includes('--record') || argv.includes('--publish')) {
    writeFileSync(RELIABILITY_FILE, renderReliability(readReliabilityRaw()));
    process.stdout.write(`wrote ${RELIABILITY_FILE}\n`);
    return;
  }
  const output = join(packageDir, 'results', soak ? 'RELIABILITY.soak.md' : 'RELIABILITY.md');
  writeFileSync(
    output,
    renderReliability(readLastRun(soak), {
      source: `reliability/results/${soak ? 'figures.soak.jsonl' : 'figures.jsonl'}`,
    }),
  );
  process.stdout.write(`wrote ${output}\n`);
}

runAsProgram(import.meta.url, 'report.mjs', main);
