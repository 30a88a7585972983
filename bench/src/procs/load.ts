/**
 * The load generator, in its own process: it sends the requests the parent asks for and reports
 * what it measured. Keeping it apart from the servers is what lets a server's share of the floor
 * mean something — the two never compete inside one event loop.
 */
import { serveParent } from '../child.js';
import { runLoad } from '../http-load.js';

serveParent(async (message) => {
  if (message.op !== 'load') throw new Error(`unknown request ${String(message.op)}`);
  const paths = message.paths as string[];
  return runLoad({
    port: message.port as number,
    path: (i) => paths[i % paths.length] as string,
    body: message.body as string,
    concurrency: message.concurrency as number,
    requests: message.requests as number,
    ...(message.accept ? { accept: message.accept as string } : {}),
  });
});
