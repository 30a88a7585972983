import { seededRandom } from '@s2sp/test-utils';
import { nwsAlertFixtures } from './data.js';

/**
 * The inputs of section 1 (tokens the model reads), in one place: the benchmark counts our
 * responses for them, and the Python reference's answers for the same ones are run or recorded
 * (`record-python-reference.ts`), so the two lists cannot drift apart.
 */

/** The abstract columns section 1 asks for: 1, 2, 4 and 8. */
export const DOMAIN_SETS: readonly (readonly string[])[] = [
  ['event'],
  ['event', 'severity'],
  ['event', 'severity', 'urgency', 'status'],
  ['event', 'severity', 'urgency', 'status', 'certainty', 'areaDesc', 'senderName', 'headline'],
];

/** A table of alerts with the label its rows carry. */
export interface AlertSet {
  readonly label: string;
  readonly rows: readonly Record<string, unknown>[];
}

/** The three recorded NWS alert sets, labelled by area and date. */
export function recordedSets(): AlertSet[] {
  return nwsAlertFixtures().map(({ name, rows }) => ({
    label: name.replace(/^alerts-active-|\.json$/g, ''),
    rows,
  }));
}

/**
 * The issue measured 33–61-alert sets that are not in the repository; the three recorded sets,
 * cycled to those sizes, stand in for them.
 */
export function cycledSets(): AlertSet[] {
  const alerts = nwsAlertFixtures().flatMap((set) => set.rows);
  return [33, 61].map((count) => ({
    label: `recorded sets cycled to ${count} alerts`,
    rows: Array.from(
      { length: count },
      (_, i) => alerts[i % alerts.length] as Record<string, unknown>,
    ),
  }));
}

/** NWS event names by season or region: live alert sets mix them in very different shares. */
const EVENT_MIXES: Record<string, readonly string[]> = {
  winter: [
    'Winter Storm Warning',
    'Winter Weather Advisory',
    'Wind Chill Advisory',
    'Freeze Warning',
    'Frost Advisory',
    'Lake Effect Snow Warning',
    'Special Weather Statement',
  ],
  coastal: [
    'Small Craft Advisory',
    'Rip Current Statement',
    'Beach Hazards Statement',
    'Coastal Flood Advisory',
    'Gale Warning',
    'Tropical Storm Watch',
    'Hurricane Warning',
  ],
  convective: [
    'Severe Thunderstorm Warning',
    'Tornado Warning',
    'Flash Flood Warning',
    'Flood Watch',
    'Special Weather Statement',
    'Severe Thunderstorm Watch',
  ],
  fire: ['Red Flag Warning', 'Fire Weather Watch', 'Air Quality Alert', 'Excessive Heat Warning'],
};

/**
 * Live-shaped alert sets: the recorded alerts as templates (every property kept), with the event
 * and its CAP severity, urgency and certainty drawn from one mix, deterministic for a seed.
 */
function liveShapedAlerts(
  count: number,
  mix: readonly string[],
  seed: number,
): Record<string, unknown>[] {
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const templates = nwsAlertFixtures().flatMap((set) => set.rows);
  return Array.from({ length: count }, (_, i) => ({
    ...(templates[i % templates.length] as object),
    event: pick(mix),
    severity: pick(['Minor', 'Moderate', 'Severe', 'Extreme', 'Unknown']),
    urgency: pick(['Immediate', 'Expected', 'Future', 'Unknown']),
    certainty: pick(['Observed', 'Likely', 'Possible', 'Unknown']),
  }));
}

/** Live-shaped sets of 33, 45, 61 and 70 alerts in four event mixes. */
export function liveShapedSets(): AlertSet[] {
  const out: AlertSet[] = [];
  let seed = 7;
  for (const [mix, events] of Object.entries(EVENT_MIXES)) {
    for (const count of [33, 45, 61, 70]) {
      out.push({
        label: `live-shaped, ${mix} mix, ${count} alerts`,
        rows: liveShapedAlerts(count, events, seed++),
      });
    }
  }
  return out;
}

/**
 * One call of the reference's resource tool: its rows and the `abstract_domains` the model
 * passes (`null`: a plain call, no S2SP).
 */
export interface ReferenceCall {
  readonly label: string;
  readonly rows: readonly object[];
  readonly abstractDomains: readonly string[] | null;
}

/** The columns section 1 compares with the reference beyond the recorded sets' two: 2 and 4. */
export const VERSUS_DOMAIN_SETS = DOMAIN_SETS.filter((d) => d.length >= 2 && d.length <= 4);

/**
 * Every call section 1 compares with the Python reference: each recorded set plain and with
 * `event,severity`; the cycled and live-shaped sets with 2 and 4 columns.
 */
export function referenceCalls(): ReferenceCall[] {
  const two = DOMAIN_SETS[1] as readonly string[];
  return [
    ...recordedSets().flatMap(({ label, rows }) => [
      { label, rows, abstractDomains: null },
      { label, rows, abstractDomains: two },
    ]),
    ...[...cycledSets(), ...liveShapedSets()].flatMap(({ label, rows }) =>
      VERSUS_DOMAIN_SETS.map((abstractDomains) => ({ label, rows, abstractDomains })),
    ),
  ];
}
