/**
 * Deterministic synthetic text: a seeded PRNG, a vocabulary of a few thousand content words whose
 * frequencies follow Zipf's law, and English stop words sprinkled between them, so the same seed yields the
 * same corpus on every backend and every run.
 */

export type Rng = () => number;

/** The bench's corpus: its seed and vocabulary size (bench/run.ts and bench/explain.ts share them). */
export const SEED = 20_250_601;
export const VOCABULARY = 3_000;

/** sfc32: small, fast, good enough for test data; returns floats in [0, 1). */
export function rng(seed: number): Rng {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const next = () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 16; i++) next();
  return next;
}

export function int(r: Rng, min: number, max: number): number {
  return min + Math.floor(r() * (max - min + 1));
}

/** A random (version 4 shaped) UUID from the PRNG, so ids are reproducible too. */
export function uuid(r: Rng): string {
  let hex = '';
  for (let i = 0; i < 4; i++) hex += Math.floor(r() * 0x100000000).toString(16).padStart(8, '0');
  const variant = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

// The head of the vocabulary: real words of the trade, so the most frequent terms look like a real project's.
// None is an English stop word, and no two share a Snowball stem.
const HEAD = `service data user deploy cache request database api config release error test build queue
  schedule token account billing session index migration latency storage network client server cluster
  payment report search message event metric alert backup policy owner review budget invoice customer
  region replica shard tenant contract vendor ticket incident outage rollback feature flag pipeline runner
  artifact registry secret vault certificate domain gateway proxy router balancer quota limit retry timeout
  webhook callback worker thread process memory disk bucket object stream batch job cron window snapshot
  archive export import schema column table row key value field record document template layout theme
  mobile desktop browser email notification reminder calendar meeting agenda roadmap milestone sprint epic
  story estimate priority severity audit compliance privacy consent retention encryption signature hash
  password login logout permission role group team member invite onboarding offboarding license pricing
  discount coupon refund chargeback ledger balance transfer currency exchange rate tax shipping warehouse
  inventory supplier catalog product variant bundle subscription renewal trial upgrade downgrade churn`;

const STOP_WORDS = `the a an of to in and or is are was be for on with as at by it this that from we
  they will should must can not but if then so our their its into over after before when which`
  .split(/\s+/)
  .filter(Boolean);

const ONSETS = ['b', 'br', 'c', 'ch', 'd', 'dr', 'f', 'g', 'gr', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'pl', 'r', 's', 'st', 't', 'tr', 'v', 'w', 'z'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou', 'ea'];
const CODAS = ['', '', 'n', 'r', 'l', 'm', 'k', 'x', 'nd', 'rt'];

export interface Vocabulary {
  /** Content words, most frequent first. */
  words: string[];
  /** Draw a content word's rank (0 = most frequent). */
  draw(r: Rng): number;
}

/**
 * `size` content words with Zipf-distributed frequencies (exponent `s`): word k is drawn with probability
 * proportional to 1 / (k + 1)^s. Invented words fill the tail; their ending is never an inflection, so the
 * English stemmer keeps them apart.
 */
export function vocabulary(size: number, seed: number, s = 1): Vocabulary {
  const r = rng(seed);
  const words = HEAD.split(/\s+/).filter(Boolean).slice(0, size);
  const seen = new Set(words);
  while (words.length < size) {
    const syllables = int(r, 2, 3);
    let w = '';
    for (let i = 0; i < syllables; i++) w += ONSETS[int(r, 0, ONSETS.length - 1)] + (VOWELS[int(r, 0, VOWELS.length - 1)] as string);
    w += CODAS[int(r, 0, CODAS.length - 1)];
    if (/(s|e|y|ed|ing|ly|al|er)$/.test(w) || seen.has(w)) continue;
    seen.add(w);
    words.push(w);
  }
  const cdf = new Float64Array(size);
  let total = 0;
  for (let k = 0; k < size; k++) {
    total += 1 / (k + 1) ** s;
    cdf[k] = total;
  }
  for (let k = 0; k < size; k++) cdf[k] = (cdf[k] as number) / total;
  return {
    words,
    draw(rand) {
      const u = rand();
      let lo = 0;
      let hi = size - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((cdf[mid] as number) < u) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    },
  };
}

/** `n` words of running text: content words from the vocabulary, about one in three a stop word. */
export function words(v: Vocabulary, r: Rng, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    out.push(r() < 0.35 ? (STOP_WORDS[int(r, 0, STOP_WORDS.length - 1)] as string) : (v.words[v.draw(r)] as string));
  }
  return out.join(' ');
}

/** A title (4–9 words, capitalised) and a body of sentences (25–110 words). */
export function itemText(v: Vocabulary, r: Rng): { title: string; body: string } {
  const title = words(v, r, int(r, 4, 9));
  const sentences: string[] = [];
  let left = int(r, 25, 110);
  while (left > 0) {
    const n = Math.min(left, int(r, 6, 18));
    const s = words(v, r, n);
    sentences.push(`${s.charAt(0).toUpperCase()}${s.slice(1)}.`);
    left -= n;
  }
  return { title: `${title.charAt(0).toUpperCase()}${title.slice(1)}`, body: sentences.join(' ') };
}

/** Directory and file-name parts of technicalText's paths, drawn like the content words. */
const DIRS = ['src', 'apps', 'packages', 'lib', 'test', 'docs', 'migrations', 'scripts', 'config', 'internal'];
const EXTS = ['ts', 'sql', 'md', 'json', 'yaml', 'go', 'py'];

/**
 * An item as engineers write decision memory about code (the write bench's second corpus): itemText's prose with a
 * sentence naming 3–10 files (`packages/store/src/search_index.ts`), an underscore identifier, a host with a port, a
 * URL path, an e-mail address and a ticket id, the pieces migration 0016 indexes besides the words.
 */
export function technicalText(v: Vocabulary, r: Rng): { title: string; body: string } {
  const { title, body } = itemText(v, r);
  const word = () => v.words[v.draw(r)] as string;
  const path = () => {
    const dirs = Array.from({ length: int(r, 1, 4) }, () => (r() < 0.5 ? (DIRS[int(r, 0, DIRS.length - 1)] as string) : word()));
    return `${dirs.join('/')}/${word()}_${word()}.${EXTS[int(r, 0, EXTS.length - 1)] as string}`;
  };
  const files = Array.from({ length: int(r, 3, 10) }, path).join(', ');
  const facts =
    `Changed ${files}. It calls ${word()}_${word()}_${word()} on db-0${int(r, 1, 9)}.${word()}.example.com:5432 ` +
    `behind /api/v${int(r, 1, 3)}/${word()}/${int(r, 1, 9999)}; ask ${word()}@example.com about OPS-${int(r, 1000, 99999)}.`;
  return { title, body: `${body} ${facts}` };
}
