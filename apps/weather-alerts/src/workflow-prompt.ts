/** Options for {@link workflowPromptText}. */
export interface WorkflowPromptOptions {
  /** The area used in the examples. Default `TX`. */
  readonly area?: string;
  /** The consumer tool the rows go to. Default `draw_chart` (the chart-consumer app). */
  readonly consumerTool?: string;
  /** Lifetime of a `resource_url`, in seconds. */
  readonly ttlSeconds: number;
}

/**
 * The `s2sp_workflow` prompt: how an LLM uses these tools with S2SP — few abstract columns,
 * filter on them, hand the kept rows and the `resource_url` to a consumer tool.
 */
export function workflowPromptText(options: WorkflowPromptOptions): string {
  const area = options.area?.trim() || 'TX';
  const consumer = options.consumerTool?.trim() || 'draw_chart';
  const minutes = Math.max(1, Math.round(options.ttlSeconds / 60));
  return [
    'The weather tools (get_alerts, get_alerts_for_point, get_forecast) return tables. With S2SP you see only the columns you ask for; the rest travels server to server.',
    '',
    `1. Call get_alerts(area="${area}", abstract_domains="event,severity"). Ask for as FEW columns as the task needs to filter or reason: "event" alone is often enough; add severity, urgency or areaDesc only when needed. The tool description lists every column. Do not ask for description or instruction: they are long, and the consumer tool reads them for you.`,
    '2. The result has total_rows, abstract (your columns plus a _row_id per row) and a resource_url. Keep only the rows the user cares about, with their _row_id. To read fewer rows, pass a filter on your columns, e.g. filter={"event":{"contains":"flood"}}; a large result comes in pages (pass next_cursor as cursor).',
    `3. Call ${consumer}(row_ids=<the _row_id values you keep, e.g. [0,4]>, resource_url=<the resource_url, unchanged>), or pass the same filter instead of row_ids. The consumer fetches every column of exactly those rows from this server; they never enter your context. (abstract_data=<the kept abstract rows> works too.)`,
    `4. A resource_url works once and expires after ${minutes} minute${minutes === 1 ? '' : 's'}. If the consumer says it expired or was used, call the weather tool again.`,
    '',
    'The same applies to get_alerts_for_point(latitude, longitude) and get_forecast(latitude, longitude), e.g. abstract_domains="name,temperature,shortForecast".',
    'Without abstract_domains a tool returns every column as plain JSON: fine for a few rows, costly for a whole state.',
  ].join('\n');
}
