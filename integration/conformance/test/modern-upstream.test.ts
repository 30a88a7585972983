// The official conformance suites against a server that serves only 2026-07-28, directly and
// through the proxy in front of it on stdio and on HTTP.
import { describeConformance } from './conformance-runs.js';

describeConformance('modern-upstream');
