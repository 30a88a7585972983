import { describe, expect, it } from 'vitest';
import { describeProblem, NwsError, parseProblem } from './nws-error.js';

describe('NWS problem documents', () => {
  it('reads an NWS problem+json body', () => {
    const problem = parseProblem(
      JSON.stringify({
        correlationId: 'abc',
        title: 'Data Unavailable For Requested Point',
        type: 'https://api.weather.gov/problems/InvalidPoint',
        status: 404,
        detail: 'Unable to provide data for requested point 51.5,-0.12',
        instance: 'https://api.weather.gov/requests/abc',
      }),
    );
    expect(problem).toEqual({
      type: 'https://api.weather.gov/problems/InvalidPoint',
      title: 'Data Unavailable For Requested Point',
      status: 404,
      detail: 'Unable to provide data for requested point 51.5,-0.12',
    });
    expect(describeProblem(problem, 'x')).toBe(
      'Data Unavailable For Requested Point: Unable to provide data for requested point 51.5,-0.12',
    );
  });

  it('lists parameter errors', () => {
    const problem = parseProblem(
      '{"title":"Bad Request","status":400,"detail":"Bad Request","parameterErrors":[{"parameter":"area","message":"Does not have a value in the enumeration"},{"bad":1}]}',
    );
    expect(problem?.parameterErrors).toEqual([
      { parameter: 'area', message: 'Does not have a value in the enumeration' },
    ]);
    expect(describeProblem(problem, 'x')).toBe(
      'Bad Request; area: Does not have a value in the enumeration',
    );
  });

  it('ignores bodies that are not problem documents, and bounds long strings', () => {
    for (const body of ['', '<html>502</html>', '[]', 'null', '{"foo":1}']) {
      expect(parseProblem(body)).toBeUndefined();
    }
    expect(describeProblem(undefined, 'Bad Gateway')).toBe('Bad Gateway');
    const long = parseProblem(JSON.stringify({ detail: 'd'.repeat(5000) }));
    expect(long?.detail).toHaveLength(501);
  });

  it('carries kind, status and problem on the error', () => {
    const error = new NwsError('http', 'NWS said no', { status: 400, problem: { title: 'x' } });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('NwsError');
    expect([error.kind, error.status, error.problem]).toEqual(['http', 400, { title: 'x' }]);
  });
});
