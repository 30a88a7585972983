// The official conformance suites against weather-alerts, chart-consumer and sql-consumer.
import { describeConformance } from './conformance-runs.js';

describeConformance('apps');
