// Packaging test: what a user gets from `npm install @s2sp/<name>`.
// 1. `pnpm pack` every public package (workspace: ranges become real versions);
// 2. publint and @arethetypeswrong/cli on each package / tarball, no errors allowed;
// 3. install the tarballs with plain npm into a fresh project outside the workspace (no links),
//    next to the user's own MCP SDK, hono and zod — once at the newest versions, once at the lowest
//    versions the peer ranges allow;
// 4. run an ESM script there that registers a resource tool on a user-created McpServer
//    (createS2SP), starts a consumer (createS2SPServer), and does one async round trip with the
//    official MCP SDK client.
// 5. follow the root README's install lines (Packages), one project per package: each line names
//    every @s2sp tarball its package depends on (not on the registry yet); the package imports,
//    and `s2sp-proxy --help` runs.
// 6. follow the root README's "Add S2SP to the MCP server you already run" as a new user would:
//    its setup lines in a new directory (`npm init -y`, the tarballs and the listed packages from
//    the registry), its sample saved under the name the README gives, started with the README's own
//    command; then its client sample, saved and run as the README says, calls the tool with
//    abstract_domains and redeems the resource_url with fetchBody, for a client of each protocol
//    era. Everything is read from the README, nothing copied.
// 7. install by name: `pnpm release` (scripts/release.mjs, with a registry URL) versions a copy of
//    the workspace with its pending changesets, builds it and publishes the five packages to a
//    local Verdaccio (scripts/local-registry.mjs: 127.0.0.1 only, no uplink); then step 6 again
//    in a project that installs @s2sp/server@<version> and @s2sp/client@<version> by name from it,
//    the version read from the released packages' package.json.
//
// --release-only runs step 7 alone. --quick runs only what can differ with the Node.js version
// running it (CI runs it on Node 22 and 24 after a full run on Node 20): steps 1, 3 and 4 at the
// newest peers, and 6. It leaves out the checks of the packages' files and metadata (2, the lowest
// peers, 5) and the release (7), whose outcome does not depend on the Node.js that runs them.
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLocalRegistry } from './local-registry.mjs';
import { pendingChangesets, release } from './release.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 's2sp-pack-'));
const keep = process.argv.includes('--keep');
const quick = process.argv.includes('--quick');
const releaseOnly = process.argv.includes('--release-only');
// Optional package directory names to test (default: every public package).
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'pipe', encoding: 'utf8', ...options });
  if (result.status !== 0) {
    process.stderr.write(`${result.stdout}\n${result.stderr}\n`);
    throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status})`);
  }
  return result.stdout;
}

const packages = readdirSync(join(root, 'packages'))
  .map((dir) => ({
    dir: join(root, 'packages', dir),
    manifest: JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')),
  }))
  .filter(
    ({ dir, manifest }) =>
      !manifest.private && (only.length === 0 || only.some((name) => dir.endsWith(`/${name}`))),
  );

const ROUND_TRIP = `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createS2SP, createS2SPServer, silentLogger } from '@s2sp/server';
import { createDataPlaneApp } from '@s2sp/server/http';
import { S2SPError } from '@s2sp/core';
import { createMemoryStore } from '@s2sp/core/store';
import { fetchBody, S2SPDispatcher } from '@s2sp/client';
import { withS2SP } from '@s2sp/client/ai-sdk';
import { withS2SP as langchainS2SP } from '@s2sp/client/langchain';
import { z } from 'zod';

// (@s2sp/core/testing needs vitest, an optional peer: attw has checked that it resolves.)
for (const value of [createDataPlaneApp, fetchBody, S2SPDispatcher, withS2SP, langchainS2SP]) {
  if (typeof value !== 'function') throw new Error('missing export');
}
const rows = [{ event: 'Wind', description: 'gusts' }, { event: 'Heat', description: 'hot' }];
// The resource side is the user's own Hono app and McpServer, with S2SP registered onto them.
const s2sp = createS2SP({ logger: silentLogger });
const app = new Hono();
app.route('/', s2sp.dataPlane);
app.post('/mcp', async (ctx) => {
  const mcp = new McpServer({ name: 'r', version: '1' });
  s2sp.registerResourceTool(mcp, 'get_rows', { description: 'rows', inputSchema: { n: z.number().optional() } }, () => rows);
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await mcp.connect(transport);
  return transport.handleRequest(ctx.req.raw);
});
const http = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
await new Promise((resolve) => http.once('listening', resolve));
const r = { mcpUrl: \`http://127.0.0.1:\${http.address().port}/mcp\` };
// The resource server is on loopback: the consumer must allow-list it (public destinations only by default).
const consumer = createS2SPServer({ name: 'c', version: '1', logger: silentLogger, consumer: { allowedOrigins: [new URL(r.mcpUrl).origin] } });
let received;
consumer.consumerTool('take', { description: 'take' }, (merged) => { received = merged; return 'ok'; });
const c = await consumer.listen();
const connect = async (url) => { const client = new Client({ name: 'pack-test', version: '1' }); await client.connect(new StreamableHTTPClientTransport(new URL(url))); return client; };
const agentR = await connect(r.mcpUrl);
const agentC = await connect(c.mcpUrl);
const split = await agentR.callTool({ name: 'get_rows', arguments: { abstract_domains: 'event' } });
const { abstract, resource_url } = split.structuredContent;
const done = await agentC.callTool({ name: 'take', arguments: { abstract_data: JSON.stringify(abstract.slice(1)), resource_url } });
if (done.content[0].text !== 'ok') throw new Error('consumer failed: ' + JSON.stringify(done));
if (JSON.stringify(received) !== JSON.stringify([{ _row_id: 1, event: 'Heat', description: 'hot' }])) throw new Error('wrong rows: ' + JSON.stringify(received));
if (!S2SPError.isInstance(new S2SPError('not_found', 'x')) || typeof createMemoryStore !== 'function') throw new Error('core broken');
await agentR.close(); await agentC.close(); http.close(); await s2sp.close(); await consumer.close();
console.log('round trip ok');
`;

/**
 * The root README's adoption path: the fenced block after `<!-- setup: … -->`, the first ```ts
 * block after it (the server sample), the block after `<!-- run: … -->` (the command that starts
 * it), the first ```ts block after that (the client sample) and the block after
 * `<!-- run-client: … -->` (the command that runs the client), with the README line of each.
 */
function readmeAdoptionPath() {
  const lines = readFileSync(join(root, 'README.md'), 'utf8').split('\n');
  const blockAfter = (from, test) => {
    const start = lines.findIndex((line, i) => i >= from && test(line));
    // The first fence at or after the line found (which may be the fence itself).
    const open = lines.findIndex((line, i) => i >= start && line.startsWith('```'));
    const close = lines.findIndex((line, i) => i > open && line.startsWith('```'));
    if (start === -1 || open === -1 || close === -1) return undefined;
    return { line: open + 2, end: close, text: lines.slice(open + 1, close) };
  };
  const isTs = (line) => /^```(ts|typescript)$/.test(line);
  const setup = blockAfter(0, (line) => line.startsWith('<!-- setup:'));
  const sample = setup && blockAfter(setup.end + 1, isTs);
  const runBlock = blockAfter(0, (line) => line.startsWith('<!-- run:'));
  const clientSample = runBlock && blockAfter(runBlock.end + 1, isTs);
  const clientRun = blockAfter(0, (line) => line.startsWith('<!-- run-client:'));
  if (!setup || !sample || !runBlock || !clientSample || !clientRun)
    throw new Error(
      'README.md: the <!-- setup: --> block, a ```ts sample after it, the <!-- run: --> block, a ```ts client sample after it or the <!-- run-client: --> block is missing',
    );
  // Shell comments are the README's, for the reader; the commands are what a user types.
  const commands = (block) =>
    block.text.map((line) => line.replace(/\s+#.*$/, '').trim()).filter((line) => line !== '');
  /** The one command of a run block and the TypeScript file it runs. */
  const fileRun = (block) => {
    const [command, ...extra] = commands(block);
    const file = command && /\s(\S+\.(?:ts|mts))$/.exec(command)?.[1];
    if (!file || extra.length > 0)
      throw new Error(`README.md:${block.line}: expected one command that runs a sample file`);
    return { command, file };
  };
  return {
    setup: commands(setup),
    setupLine: setup.line,
    server: { ...fileRun(runBlock), sample: `${sample.text.join('\n')}\n` },
    client: { ...fileRun(clientRun), sample: `${clientSample.text.join('\n')}\n` },
  };
}

/** The root README's install lines: the fenced block after `<!-- install: … -->`. */
function readmeInstallLines() {
  const lines = readFileSync(join(root, 'README.md'), 'utf8').split('\n');
  const at = lines.findIndex((line) => line.startsWith('<!-- install:'));
  const open = lines.findIndex((line, i) => i > at && line.startsWith('```'));
  const close = lines.findIndex((line, i) => i > open && line.startsWith('```'));
  if (at === -1 || open === -1 || close === -1)
    throw new Error('README.md: the <!-- install: --> block is missing');
  return { line: open + 2, lines: lines.slice(open + 1, close) };
}

/** Starts `command` (in its own process group, to stop tsx and its child) and waits for a URL. */
function startServer(command, cwd, env) {
  const child = spawn('sh', ['-c', command], { cwd, env, detached: true, stdio: 'pipe' });
  let output = '';
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`\`${command}\` printed no MCP URL in 60 s:\n${output}`)),
      60_000,
    );
    const onData = (chunk) => {
      output += chunk;
      const match = /http:\/\/\S+\/mcp\b/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[0]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`\`${command}\` exited (${code}) before printing its URL:\n${output}`));
    });
  });
  return { url, stop: () => child.exitCode === null && process.kill(-child.pid, 'SIGTERM') };
}

/** Where the README's install lines expect a clone's packs (the test's are in `work`). */
const PACKS = '/path/to/s2sp-typescript/packs';
/** The README's run of tarball arguments on an install line. */
const TARBALL_ARGUMENTS = /(?:\S+\/s2sp-[a-z-]+-\*\.tgz\s+)+/;

/**
 * A copy of the workspace to release from: the root files, the changesets, the packages (without
 * their builds, so the copy builds its own), and the manifest of every other workspace project,
 * since publishing replaces workspace: ranges (devDependencies' too) with those projects'
 * versions (their manifests only). It shares the clone's node_modules: each project's
 * node_modules holds relative links into the root's, which resolve through a link.
 */
function copyWorkspace(dest) {
  mkdirSync(dest);
  for (const file of [
    'package.json',
    'pnpm-workspace.yaml',
    'pnpm-lock.yaml',
    'turbo.json',
    'tsconfig.base.json',
  ])
    cpSync(join(root, file), join(dest, file));
  cpSync(join(root, '.changeset'), join(dest, '.changeset'), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(dest, 'node_modules'));
  const projects = JSON.parse(run('pnpm', ['ls', '-r', '--depth', '-1', '--json'], { cwd: root }));
  for (const { path } of projects) {
    const dir = relative(root, path);
    if (dir === '' || dir.startsWith('packages/')) continue;
    // Only what publishing reads: its name and version (no scripts, so turbo builds none of it).
    const { name, version } = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8'));
    mkdirSync(join(dest, dir), { recursive: true });
    writeFileSync(
      join(dest, dir, 'package.json'),
      JSON.stringify({ name, version, private: true }),
    );
  }
  cpSync(join(root, 'packages'), join(dest, 'packages'), {
    recursive: true,
    verbatimSymlinks: true,
    filter: (source) => !/\/packages\/[^/]+\/(?:dist|\.turbo)$/.test(source),
  });
  return dest;
}

/**
 * The root README's "Add S2SP to the MCP server you already run", followed in a new directory
 * `name` under the work directory: its setup lines (each rewritten by `rewrite`: where the
 * packages come from), its server sample started with its command, its client sample run as it
 * says; both samples type-check with the @types/node the README has installed. With `npmrc`, the
 * project gets that .npmrc first; with `registry` and `version`, @s2sp/server, @s2sp/client and
 * @s2sp/core must be installed at `version`, the registry's latest.
 */
async function followAdoptionPath(name, rewrite, { npmrc, registry, version } = {}) {
  const readme = readmeAdoptionPath();
  const project = join(work, name);
  mkdirSync(project);
  if (npmrc !== undefined) writeFileSync(join(project, '.npmrc'), npmrc);
  const setup = readme.setup.map(rewrite);
  for (const [index, command] of setup.entries()) {
    const result = spawnSync('sh', ['-c', command], { cwd: project, encoding: 'utf8' });
    if (result.status !== 0)
      throw new Error(
        `README.md:${readme.setupLine}: \`${readme.setup[index]}\` failed as \`${command}\` (exit ${result.status}):\n${result.stdout}\n${result.stderr}`,
      );
  }
  const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
  if (manifest.type !== 'module')
    throw new Error('README.md setup: the project is not an ES module project');
  if (registry !== undefined) {
    // What npm installed is what the registry holds: the same version and the same tarball.
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8'));
    for (const pkg of ['@s2sp/server', '@s2sp/client', '@s2sp/core']) {
      const entry = lock.packages?.[`node_modules/${pkg}`];
      const answer = await fetch(new URL(pkg.replace('/', '%2f'), registry));
      const latest = answer.ok ? await answer.json() : {};
      const published = latest.versions?.[latest['dist-tags']?.latest];
      if (
        !entry ||
        entry.version !== version ||
        entry.version !== published?.version ||
        entry.integrity !== published?.dist?.integrity
      )
        throw new Error(
          `${name}: ${pkg} was installed as ${entry?.version} (${entry?.integrity}), not as the version released, ${version}, which should be the registry's latest, ${published?.version} (${published?.dist?.integrity})`,
        );
    }
  }
  writeFileSync(join(project, readme.server.file), readme.server.sample);
  writeFileSync(join(project, readme.client.file), readme.client.sample);
  // The README says @types/node is what type-checking the samples needs: check that it is enough,
  // with the strict options a new project would use (the library .d.ts files included).
  run(
    process.execPath,
    [
      join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--target',
      'es2022',
      readme.server.file,
      readme.client.file,
    ],
    { cwd: project },
  );
  // PORT=0: a free port, since a fixed one may be taken on a CI machine; the sample reads PORT.
  const server = startServer(readme.server.command, project, { ...process.env, PORT: '0' });
  try {
    const url = await server.url;
    // The client reads PORT as the server does: the one the server chose.
    const printed = run('sh', ['-c', readme.client.command], {
      cwd: project,
      env: { ...process.env, PORT: new URL(url).port },
    });
    const got = printed
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const answer = (era) => ({
      era,
      abstract: [
        { _row_id: 0, name: 'North' },
        { _row_id: 1, name: 'South' },
      ],
      body: [
        { _row_id: 0, id: 'TX-1', name: 'North', elevation_m: 210, notes: 'rooftop' },
        { _row_id: 1, id: 'TX-2', name: 'South', elevation_m: 12, notes: 'airport' },
      ],
    });
    const want = [answer('modern'), answer('legacy')];
    if (JSON.stringify(got) !== JSON.stringify(want))
      throw new Error(
        `README.md: \`${readme.client.command}\` printed ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`,
      );
    console.log(
      `ok README adoption path (${name}): ${setup.length} setup lines, ${readme.server.file} and ${readme.client.file} type-check with @types/node, \`${readme.server.command}\` serves ${url}; \`${readme.client.command}\` split the rows with list_stations and redeemed the body with fetchBody, for a 2026-07-28 client and a 2025 one`,
    );
  } finally {
    server.stop();
  }
}

try {
  console.log(`packaging test on Node.js ${process.version}${quick ? ' (--quick)' : ''}`);
  const tarballs = [];
  const tarballOf = new Map();
  if (!releaseOnly) {
    for (const { dir, manifest } of packages) {
      const out = run('pnpm', ['pack', '--pack-destination', work], { cwd: dir })
        .trim()
        .split('\n')
        .at(-1);
      tarballs.push(out);
      tarballOf.set(manifest.name, out);
      const packed = JSON.parse(run('tar', ['-xOzf', out, 'package/package.json']));
      for (const [name, range] of Object.entries({
        ...packed.dependencies,
        ...packed.peerDependencies,
      })) {
        if (String(range).startsWith('workspace:') || String(range).startsWith('catalog:'))
          throw new Error(`${manifest.name}: dependency ${name} still has the range ${range}`);
      }
      if (quick) {
        console.log(`ok ${manifest.name}@${packed.version}: packed`);
        continue;
      }
      run('npx', ['publint', dir, '--strict', '--pack', 'pnpm'], { cwd: root });
      run('npx', ['attw', out, '--profile', 'esm-only'], { cwd: root });
      console.log(`ok ${manifest.name}@${packed.version}: packed, publint and attw clean`);
    }

    // The user's own copies of the peer dependencies: newest, then the lowest the ranges allow.
    const peerSets = {
      newest: [
        '@modelcontextprotocol/server@^2.4.0',
        '@modelcontextprotocol/sdk@^1.32.2',
        'hono@^4',
        'zod@^4',
      ],
      lowest: [
        '@modelcontextprotocol/server@2.4.0',
        '@modelcontextprotocol/sdk@1.27.0',
        'hono@4.11.4',
        'zod@4.2.0',
      ],
    };
    for (const [label, peers] of Object.entries(peerSets)) {
      if (quick && label !== 'newest') continue;
      const app = join(work, `app-${label}`);
      run('mkdir', ['-p', app]);
      writeFileSync(
        join(app, 'package.json'),
        JSON.stringify({ name: 'pack-test-app', private: true, type: 'module' }),
      );
      // The tarballs depend on each other by version; give npm all of them at once, and the
      // registry for everything else.
      run(
        'npm',
        ['install', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs, ...peers],
        {
          cwd: app,
        },
      );
      writeFileSync(join(app, 'round-trip.mjs'), ROUND_TRIP);
      const output = run('node', ['round-trip.mjs'], { cwd: app });
      if (!output.includes('round trip ok'))
        throw new Error(`round trip did not complete:\n${output}`);
      console.log(
        `ok installed ${packages.length} tarballs with npm outside the workspace beside ${peers.join(', ')}; async round trip passed (${label} peers)`,
      );
    }

    // The root README's install lines (Packages), one per package, each in a project of its own: a
    // line must name the tarball of every @s2sp package the package depends on, which npm cannot
    // fetch from the registry yet; then the package imports, and s2sp-proxy answers --help.
    if (only.length === 0 && !quick) {
      const install = readmeInstallLines();
      for (const [index, line] of install.lines.entries()) {
        const named = [...line.matchAll(/\/s2sp-([a-z-]+?)-\*\.tgz/g)].map((m) => `@s2sp/${m[1]}`);
        const needed = new Set(named);
        for (const name of needed) {
          if (!tarballOf.has(name))
            throw new Error(`README.md:${install.line + index}: no package ${name} was packed`);
          const packed = JSON.parse(
            run('tar', ['-xOzf', tarballOf.get(name), 'package/package.json']),
          );
          for (const dep of Object.keys(packed.dependencies ?? {})) {
            if (tarballOf.has(dep)) needed.add(dep);
          }
        }
        const missing = [...needed].filter((name) => !named.includes(name));
        if (missing.length > 0)
          throw new Error(
            `README.md:${install.line + index}: \`${line}\` leaves out ${missing.join(', ')}, which ${named.at(-1)} depends on`,
          );
        const project = join(work, `install-${index}`);
        mkdirSync(project);
        writeFileSync(
          join(project, 'package.json'),
          JSON.stringify({ name: 'install', private: true }),
        );
        const command = line
          .replaceAll(PACKS, work)
          .replace(/^npm install /, 'npm install --no-audit --no-fund --loglevel=error ');
        const result = spawnSync('sh', ['-c', command], { cwd: project, encoding: 'utf8' });
        if (result.status !== 0)
          throw new Error(
            `README.md:${install.line + index}: \`${line}\` failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`,
          );
        for (const name of named)
          run(process.execPath, ['--input-type=module', '-e', `await import('${name}');`], {
            cwd: project,
          });
        if (named.includes('@s2sp/proxy')) {
          const bin = join(project, 'node_modules', '.bin', 's2sp-proxy');
          const help = run(bin, ['--help'], { cwd: project });
          if (!help.includes('Usage: s2sp-proxy'))
            throw new Error(`s2sp-proxy --help printed:\n${help}`);
        }
        console.log(
          `ok README install line for ${named.at(-1)}: ${named.join(', ')} install alone and import`,
        );
      }
    }
    // The README's adoption path, as a new user follows it (needs the server and core tarballs).
    if (tarballOf.has('@s2sp/server') && tarballOf.has('@s2sp/core')) {
      // The README installs from a clone's packs/ directory; the tarballs here are in `work`.
      await followAdoptionPath('readme-adoption', (line) => line.replaceAll(PACKS, work));
    }
  }

  // Install by name, as users will once the packages are on npm: `pnpm release` (the same
  // function, with a registry URL) versions a copy of the workspace with its pending changesets,
  // builds it and publishes the five packages to a local Verdaccio; then the README's adoption
  // path again, in a new project that names @s2sp/server and @s2sp/client instead of tarballs.
  if (only.length === 0 && !quick) {
    const registry = await startLocalRegistry(join(work, 'registry'));
    try {
      const copy = copyWorkspace(join(work, 'release-workspace'));
      const host = registry.url.replace(/^http:/, '');
      writeFileSync(join(work, 'release.npmrc'), `${host}:_authToken=${registry.token}\n`);
      const changesetsBefore = pendingChangesets(root);
      const { versioned } = release({
        root: copy,
        registry: registry.url,
        env: { ...process.env, npm_config_userconfig: join(work, 'release.npmrc') },
        stdio: 'pipe',
      });
      if (pendingChangesets(root).join() !== changesetsBefore.join())
        throw new Error('the release test consumed changeset files of the clone itself');
      const versionIn = (dir) =>
        JSON.parse(readFileSync(join(dir, 'packages', 'server', 'package.json'), 'utf8')).version;
      const version = versionIn(copy);
      if (versioned.length > 0 && version === versionIn(root))
        throw new Error(
          `pnpm release consumed ${versioned.length} changesets but left the version at ${version}`,
        );
      for (const { manifest } of packages) {
        const answer = await fetch(new URL(manifest.name.replace('/', '%2f'), registry.url));
        const latest = answer.ok ? (await answer.json())['dist-tags']?.latest : undefined;
        if (latest !== version)
          throw new Error(
            `${manifest.name}: the local registry's latest is ${latest ?? `missing (HTTP ${answer.status})`}, expected ${version}`,
          );
      }
      console.log(
        `ok pnpm release: versioned a copy of the workspace with ${versioned.length} changesets to ${version}, built it and published ${packages.length} packages to a local registry (${registry.url})`,
      );
      // By name and version: the two packages an adopter names, at the version just released
      // (read from the versioned copy's manifests: 0.1.0 from 0.0.0 and the pending changesets,
      // or the version already committed when none is pending), not whatever `latest` is;
      // @s2sp/core comes as their dependency.
      await followAdoptionPath(
        `install-by-name-${version}`,
        (line) =>
          line.replace(TARBALL_ARGUMENTS, `@s2sp/server@${version} @s2sp/client@${version} `),
        { npmrc: `@s2sp:registry=${registry.url}\n`, registry: registry.url, version },
      );
    } finally {
      registry.stop();
    }
  }
} finally {
  if (!keep) rmSync(work, { recursive: true, force: true });
}
