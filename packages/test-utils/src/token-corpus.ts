/**
 * Tables of many shapes, as compact JSON (how a plain tool result carries them), for calibrating
 * and checking `estimateTokens` against a real tokenizer: ids, timestamps, enum strings, long
 * prose with punctuation, numbers, UUIDs, e-mails, JSON in strings, URLs, code identifiers and
 * non-ASCII text in several scripts. Deterministic for a seed.
 *
 * The shapes come in two groups: those the estimator's constants were fitted on
 * (`calibration`), and those kept out of the fit (`held-out`) so that a test can check the
 * estimate on text it was not tuned to. The held-out group draws on scripts and column mixes the
 * calibration group does not have (German, Spanish, Chinese, Korean, Greek; a 150 × 11 database
 * table with two long text columns).
 */

import { seededRandom } from './seeded-random.js';

/** One table shape: its name, its JSON text, and whether the estimator was fitted on it. */
export interface TokenShape {
  readonly name: string;
  readonly group: 'calibration' | 'held-out';
  readonly text: string;
}

type Random = () => number;

// English words, most frequent first: drawn with Zipf weights, so short common words dominate
// as in real prose and the long rare ones still show up.
const ENGLISH =
  `the of and to a in is that for it as was with be by on not he this are or his from at
which but have an they you were her she there one all we their been has when who will more no if
out so said what up its about into than them can only other new some could time these two may
then do first any my now such like our over man me even most made after also did many before must
through back years where much your way well down should because each just those people how too
little state good very make world still own see men work long get here between both life being
under never day same another know while last might us great old year off come since against go
came right used take three system data report service customer order account payment invoice
request response server database table column value field record update status error warning
message user team project issue release version feature review change access support product
price amount total balance shipping delivery address region market revenue quarter meeting
schedule deadline contract agreement policy security network storage memory performance latency
throughput availability incident outage maintenance deployment migration configuration
authentication authorization subscription notification integration dashboard analytics
forecast temperature precipitation visibility humidity pressure advisory warning conditions
expected throughout afternoon evening overnight morning significant approximately additional
recommended immediately unfortunately responsibility infrastructure reimbursement
acknowledgement discrepancy escalation prioritization reconciliation troubleshooting
intermittently compatibility synchronization kubernetes postgres webhook timestamp endpoint
refactor middleware serializer idempotency throttling backoff retries`
    .split(/\s+/)
    .filter(Boolean);

const FIRST =
  'James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth Wei Aisha Omar Priya Kenji Fatima Lucas Sofia'.split(
    ' ',
  );
const LAST =
  'Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Nguyen Patel Kim Chen Okafor Haddad'.split(
    ' ',
  );

// Real sentences in several scripts: the calibration group uses French, Russian and Japanese,
// the held-out group the others, so that the per-script constants are checked on scripts they
// were not fitted on.
const CALIBRATION_SCRIPTS = {
  french: [
    'Le client a signalé une erreur lors du paiement de sa commande.',
    'La livraison prévue pour mercredi a été reportée à la semaine prochaine.',
    'Nous avons reçu votre demande et un conseiller vous répondra très bientôt.',
    "L'équipe technique a déployé un correctif après l'incident de cette nuit.",
    'Les températures élevées devraient persister jusqu’à la fin du week-end.',
  ],
  russian: [
    'Клиент сообщил об ошибке при оплате заказа.',
    'Доставка, запланированная на среду, перенесена на следующую неделю.',
    'Мы получили ваш запрос, и специалист скоро свяжется с вами.',
    'Техническая команда выпустила исправление после ночного сбоя.',
    'Высокая температура сохранится до конца выходных.',
  ],
  japanese: [
    'お客様から注文の支払い時にエラーが発生したと報告がありました。',
    '水曜日に予定していた配送は来週に延期されました。',
    'お問い合わせを受け付けました。担当者よりまもなくご連絡いたします。',
    '技術チームは昨夜の障害の後に修正を公開しました。',
    '週末まで高温が続く見込みです。',
  ],
};
const HELD_OUT_SCRIPTS = {
  german: [
    'Der Kunde hat einen Fehler bei der Bezahlung seiner Bestellung gemeldet.',
    'Die für Mittwoch geplante Lieferung wurde auf nächste Woche verschoben.',
    'Wir haben Ihre Anfrage erhalten; ein Berater meldet sich in Kürze.',
    'Das technische Team hat nach dem nächtlichen Ausfall eine Korrektur veröffentlicht.',
    'Die hohen Temperaturen halten voraussichtlich bis zum Ende des Wochenendes an.',
  ],
  spanish: [
    'El cliente informó de un error al pagar su pedido.',
    'La entrega prevista para el miércoles se aplazó a la próxima semana.',
    'Hemos recibido su solicitud y un asesor le responderá en breve.',
    'El equipo técnico publicó una corrección después del incidente de anoche.',
    'Se espera que las temperaturas altas continúen hasta el fin de semana.',
  ],
  chinese: [
    '客户报告在支付订单时出现错误。',
    '原定于周三的配送已推迟到下周。',
    '我们已收到您的请求，顾问将很快与您联系。',
    '技术团队在昨晚的故障之后发布了修复程序。',
    '预计高温天气将持续到周末结束。',
  ],
  korean: [
    '고객이 주문 결제 중 오류가 발생했다고 알려 왔습니다.',
    '수요일로 예정된 배송이 다음 주로 연기되었습니다.',
    '요청을 접수했으며 담당자가 곧 연락드리겠습니다.',
  ],
  greek: [
    'Ο πελάτης ανέφερε σφάλμα κατά την πληρωμή της παραγγελίας.',
    'Η παράδοση που είχε προγραμματιστεί για την Τετάρτη αναβλήθηκε.',
  ],
};
const NAMES_CALIBRATION = [
  'José Álvarez',
  'Zoë Dupont',
  'Élodie Martin',
  'Ольга Иванова',
  '田中 太郎',
  'François Lefèvre',
];
const NAMES_HELD_OUT = [
  'Jürgen Müller',
  'Łukasz Wójcik',
  'Søren Kierkegaard',
  '王小明',
  '김민준',
  'Ana Peña',
  'Νίκος Παππάς',
];
const EMOJI = ['🙂', '🚀', '✅', '⚠️', '🔥', '👍🏽', '📦'];

function picker(random: Random) {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const hex = (length: number) =>
    Array.from({ length }, () => '0123456789abcdef'[int(0, 15)]).join('');
  // Zipf-like: rank r is drawn with weight 1/(r+2).
  const weights = ENGLISH.map((_, r) => 1 / (r + 2));
  const sum = weights.reduce((a, b) => a + b, 0);
  const word = () => {
    let x = random() * sum;
    for (let r = 0; r < ENGLISH.length; r++) {
      x -= weights[r] as number;
      if (x <= 0) return ENGLISH[r] as string;
    }
    return ENGLISH[0] as string;
  };
  const sentence = () => {
    const words = Array.from({ length: int(6, 22) }, word);
    if (random() < 0.25) words.splice(int(1, words.length - 1), 0, String(int(2, 500)));
    if (random() < 0.15) words.splice(int(1, words.length - 1), 0, `${int(1, 99)}%`);
    if (random() < 0.1) words.splice(int(1, words.length - 1), 0, `"${word()} ${word()}"`);
    if (random() < 0.1) words.splice(int(1, words.length - 1), 0, `(${word()} ${word()})`);
    if (random() < 0.1) words.splice(int(1, words.length - 1), 0, `${word()}-${word()}`);
    if (random() < 0.08)
      words.splice(int(1, words.length - 1), 0, pick(["don't", "it's", "we'll", "isn't"]));
    let text = words.join(' ');
    if (random() < 0.3) text = text.replace(' ', ', ');
    if (random() < 0.1) text = text.replace(/ (\w+) /, ' $1; ');
    if (random() < 0.15) text = text.toUpperCase();
    return `${text[0]?.toUpperCase()}${text.slice(1)}${pick(['.', '.', '.', '!', '?', ':', '...'])}`;
  };
  const prose = (min: number, max: number) => {
    const out: string[] = [];
    for (let n = int(min, max), length = 0; length < n; ) {
      const s = sentence();
      out.push(s);
      length += s.length;
      if (random() < 0.15) out.push('\n\n');
    }
    return out.join(' ').replace(/ ?\n\n ?/g, '\n\n');
  };
  const uuid = () =>
    `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(['8', '9', 'a', 'b'])}${hex(3)}-${hex(12)}`;
  const pad = (n: number) => String(n).padStart(2, '0');
  const iso = () =>
    `20${int(20, 26)}-${pad(int(1, 12))}-${pad(int(1, 28))}T${pad(int(0, 23))}:${pad(int(0, 59))}:${pad(int(0, 59))}.${String(int(0, 999)).padStart(3, '0')}Z`;
  const sqlTime = () =>
    `20${int(20, 26)}-${pad(int(1, 12))}-${pad(int(1, 28))} ${pad(int(0, 23))}:${pad(int(0, 59))}:${pad(int(0, 59))}+00`;
  const person = () => `${pick(FIRST)} ${pick(LAST)}`;
  const email = (name = person()) =>
    `${name.toLowerCase().replace(/[^a-z]+/g, pick(['.', '_', '']))}${random() < 0.3 ? int(1, 99) : ''}@${pick(['example.com', 'mail.example.org', 'corp.example.net', 'gmail.com'])}`;
  const amount = () => Math.round(random() * 10 ** int(1, 6)) / 100;
  const base64url = (length: number) =>
    Array.from(
      { length },
      () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'[int(0, 63)],
    ).join('');
  const identifier = () => {
    const [a, b, c] = [word(), word(), word()];
    return pick([
      `${a}${b[0]?.toUpperCase()}${b.slice(1)}`,
      `${a}_${b}_${c}`,
      `${a.toUpperCase()}_${b.toUpperCase()}`,
      `${a}.${b}.${c}`,
      `/${a}/${b}/${int(1, 9999)}`,
    ]);
  };
  return {
    pick,
    int,
    hex,
    word,
    sentence,
    prose,
    uuid,
    iso,
    sqlTime,
    person,
    email,
    amount,
    base64url,
    identifier,
  };
}

function table(rows: number, row: (i: number) => Record<string, unknown>): string {
  return JSON.stringify(Array.from({ length: rows }, (_, i) => row(i)));
}

function shapes(seed: number, group: TokenShape['group']): TokenShape[] {
  const random = seededRandom(seed);
  const g = picker(random);
  const scripts = group === 'calibration' ? CALIBRATION_SCRIPTS : HELD_OUT_SCRIPTS;
  const lines = Object.values(scripts).flat();
  const names = group === 'calibration' ? NAMES_CALIBRATION : NAMES_HELD_OUT;
  const foreign = (n: number) => Array.from({ length: n }, () => g.pick(lines)).join(' ');
  const status = [
    'active',
    'pending',
    'pending_review',
    'Closed',
    'In Progress',
    'CANCELLED',
    'on-hold',
  ];
  const json = () =>
    JSON.stringify({
      source: g.pick(['web', 'ios', 'android', 'api']),
      attempt: g.int(1, 5),
      tags: [g.word(), g.word()],
      ok: random() < 0.8,
      ratio: Math.round(random() * 1000) / 1000,
      note: g.sentence(),
    });
  const shared: Record<string, () => string> = {
    // Orders: ids, UUIDs, timestamps, enums, e-mails and amounts; no prose.
    orders: () =>
      table(g.int(150, 250), (i) => ({
        id: 100_000 + i,
        order_id: g.uuid(),
        created_at: g.iso(),
        status: g.pick(status),
        customer_email: g.email(),
        amount: g.amount(),
        currency: g.pick(['USD', 'EUR', 'GBP', 'JPY']),
        items: g.int(1, 12),
        gift: random() < 0.1,
        coupon: random() < 0.7 ? null : g.pick(['SPRING25', 'WELCOME10', 'FREESHIP']),
      })),
    // Articles: long English prose, titles, slugs and authors.
    articles: () =>
      table(g.int(40, 70), (i) => ({
        id: i + 1,
        slug: `${g.word()}-${g.word()}-${g.word()}-${g.int(1, 999)}`,
        title: g.sentence().slice(0, 80),
        author: g.person(),
        published_at: g.sqlTime(),
        tags: [g.word(), g.word(), g.word()],
        body: g.prose(600, 2500),
      })),
    // Events: JSON in strings, IP addresses, user agents, hex trace ids.
    events: () =>
      table(g.int(120, 200), (i) => ({
        seq: i,
        ts: Date.UTC(2026, 0, 1) + i * g.int(1_000, 90_000),
        type: g.pick(['page_view', 'click', 'signup', 'checkout.completed', 'error']),
        trace_id: g.hex(32),
        ip: `${g.int(1, 223)}.${g.int(0, 255)}.${g.int(0, 255)}.${g.int(1, 254)}`,
        user_agent: `Mozilla/5.0 (${g.pick(['Windows NT 10.0; Win64; x64', 'Macintosh; Intel Mac OS X 14_5', 'X11; Linux x86_64'])}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${g.int(100, 130)}.0.${g.int(1000, 6999)}.${g.int(10, 199)} Safari/537.36`,
        payload: json(),
      })),
    // People in several scripts: names, bios and locales.
    people: () =>
      table(g.int(60, 120), (i) => ({
        id: i + 1,
        name: random() < 0.5 ? g.pick(names) : g.person(),
        locale: g.pick(['fr-FR', 'ru-RU', 'ja-JP', 'de-DE', 'es-ES', 'zh-CN', 'ko-KR', 'en-US']),
        bio: random() < 0.6 ? foreign(g.int(1, 4)) : g.prose(80, 300),
        reaction: random() < 0.3 ? `${g.pick(EMOJI)} ${g.sentence()}` : null,
        joined: g.iso(),
      })),
    // Metrics: numbers of every kind.
    metrics: () =>
      table(g.int(200, 400), (i) => ({
        t: 1_767_225_600_000 + i * 60_000,
        host: `web-${g.int(1, 40)}.${g.pick(['us-east-1', 'eu-west-2', 'ap-south-1'])}`,
        cpu: Math.round(random() * 10_000) / 100,
        mem_bytes: g.int(1e8, 6e10),
        p99_ms: Math.round(random() * 1e6) / 1e3,
        error_rate: random() < 0.2 ? 0 : Number((random() / 100).toPrecision(3)),
        up: random() < 0.97,
        lat: Number((random() * 180 - 90).toFixed(6)),
        lon: Number((random() * 360 - 180).toFixed(6)),
      })),
    // Logs: code identifiers, paths, URLs and short messages.
    logs: () =>
      table(g.int(150, 250), () => ({
        level: g.pick(['DEBUG', 'INFO', 'WARN', 'ERROR']),
        at: g.iso(),
        logger: g.identifier(),
        message: `${g.sentence()} ${g.identifier()}=${g.int(0, 99_999)}`,
        url: `https://api.example.com/v${g.int(1, 3)}/${g.word()}s/${g.int(1, 99_999)}?${g.word()}=${g.base64url(g.int(6, 20))}`,
        span: g.hex(16),
        token: random() < 0.3 ? g.base64url(43) : undefined,
      })),
  };
  // The real database table through the proxy: 150 rows × 11 columns, two long texts.
  const database = () =>
    table(150, (i) => ({
      id: i + 1,
      uuid: g.uuid(),
      created_at: g.sqlTime(),
      updated_at: g.iso(),
      status: g.pick(status),
      email: g.email(),
      customer: random() < 0.3 ? g.pick(names) : g.person(),
      total: g.amount(),
      metadata: json(),
      description: g.prose(400, 1600),
      notes: random() < 0.4 ? foreign(g.int(1, 3)) : g.prose(100, 900),
    }));
  const out = Object.entries(shared).map(([name, make]) => ({ name, group, text: make() }));
  if (group === 'held-out') {
    out.push({ name: 'database 150 × 11', group, text: database() });
    // Pretty-printed (indent 2), as some servers answer.
    out.push({
      name: 'orders, pretty-printed',
      group,
      text: JSON.stringify(JSON.parse(shared.orders?.() ?? '[]'), null, 2),
    });
  } else {
    out.push({
      name: 'articles, pretty-printed',
      group,
      text: JSON.stringify(JSON.parse(shared.articles?.() ?? '[]'), null, 2),
    });
  }
  return out.map((shape) => ({ ...shape, name: `${shape.name} (${group})` }));
}

/**
 * The corpus: every shape once with the calibration seed and its scripts, and once with another
 * seed and the held-out scripts, plus the held-out group's own tables.
 *
 * @param seed - the calibration group's seed; the held-out group uses `seed + 1`
 */
export function tokenCorpus(seed = 1): TokenShape[] {
  return [...shapes(seed, 'calibration'), ...shapes(seed + 1, 'held-out')];
}
