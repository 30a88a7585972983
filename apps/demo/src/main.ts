#!/usr/bin/env node
/**
 * `pnpm demo`: runs the whole S2SP pipeline offline and explains it.
 *
 *   node apps/demo/dist/main.js [--area TX] [--event Heat] [--live] [--keep-running] [--json]
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DemoError, runAgent } from './agent.js';
import { startPipeline } from './pipeline.js';
import { formatReport, formatSeverityReport } from './report.js';
import { runSeverityTask } from './severity-task.js';

const USAGE = `Usage: pnpm demo [--area TX] [--event Heat] [--live] [--keep-running] [--json] [--out DIR] [--warmup]

Runs the S2SP pipeline: an NWS replay server (recorded data; --live uses api.weather.gov),
the weather-alerts resource server, the sql-consumer and chart-consumer servers on free loopback
ports, and a scripted agent that asks for four abstract columns, keeps the alerts whose event matches --event,
and has draw_chart fetch the rest of each row server to server. Then the same in sync mode.
A second task asks how many alerts there are of each severity and charts the counts: plain
MCP, paging through a one-column abstract, and query_tables (sql-consumer, DuckDB) whose answer
draw_chart reads as an S2SP table.`;

const OPTIONS = {
  area: { type: 'string', default: 'TX' },
  event: { type: 'string', default: 'Heat' },
  live: { type: 'boolean', default: false },
  'keep-running': { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  warmup: { type: 'boolean', default: false },
  out: { type: 'string', default: '.demo' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

async function main(): Promise<number> {
  let args: ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];
  try {
    args = parseArgs({ options: OPTIONS }).values;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const area = args.area.trim().toUpperCase();
  // Progress goes to stderr with --json, so stdout holds only the JSON report.
  const say = (line: string) => (args.json ? process.stderr : process.stdout).write(`› ${line}\n`);
  const started = Date.now();
  const pipeline = await startPipeline({ live: args.live, say });
  let keep = false;
  try {
    const agentOptions = {
      area,
      event: args.event,
      live: args.live,
      outputDir: resolve(args.out),
      say,
    };
    // A first, unreported pass compiles the code paths (chart rendering above all), so that the
    // three measured flows compare their own costs, not who ran first.
    if (args.warmup) await runAgent(pipeline, { ...agentOptions, say: () => {} });
    const report = await runAgent(pipeline, agentOptions);
    // The second task: a question answered in SQL over the table the model never reads.
    const severity = await runSeverityTask(pipeline, { area, say });
    if (args.json)
      process.stdout.write(
        `${JSON.stringify({ ...report, severity, seconds: (Date.now() - started) / 1000 })}\n`,
      );
    else
      process.stdout.write(
        `${formatReport(report, { keepRunning: args['keep-running'] })}${formatSeverityReport(severity, { keepRunning: args['keep-running'] })}  done in ${((Date.now() - started) / 1000).toFixed(1)} s
`,
      );
    if (args['keep-running']) {
      keep = true;
      say(
        `servers keep running: charts at ${pipeline.chart.url}/charts, MCP at ${pipeline.weather.mcpUrl}, ${pipeline.sql.mcpUrl} and ${pipeline.chart.mcpUrl}. Ctrl-C stops them.`,
      );
      await new Promise<void>((resolveStop) => {
        process.once('SIGINT', resolveStop);
        process.once('SIGTERM', resolveStop);
      });
    }
    return 0;
  } finally {
    if (keep) say('stopping…');
    await pipeline.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message =
      error instanceof DemoError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`demo failed: ${message}\n`);
    process.exit(1);
  },
);
