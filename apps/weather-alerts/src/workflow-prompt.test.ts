import { describe, expect, it } from 'vitest';
import { workflowPromptText } from './workflow-prompt.js';

describe('workflowPromptText', () => {
  it('teaches few abstract columns, filtering and passing resource_url to the consumer', () => {
    const text = workflowPromptText({ ttlSeconds: 600 });
    expect(text).toContain('get_alerts(area="TX", abstract_domains="event,severity")');
    expect(text).toContain('as FEW columns');
    expect(text).toContain('draw_chart(row_ids=');
    expect(text).toContain('resource_url=<the resource_url, unchanged>');
    expect(text).toContain('expires after 10 minutes');
  });

  it('uses the given area, consumer tool and TTL', () => {
    const text = workflowPromptText({ ttlSeconds: 60, area: 'CA', consumerTool: 'summarize' });
    expect(text).toContain('area="CA"');
    expect(text).toContain('summarize(row_ids=');
    expect(text).toContain('expires after 1 minute.');
  });
});
