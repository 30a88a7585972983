// The official conformance suites against s2sp-proxy in front of server-everything, and against
// the suite's own server directly and through the proxy.
import { describeConformance } from './conformance-runs.js';

describeConformance('proxy');
