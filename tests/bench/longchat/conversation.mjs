// Copied from the shared benchmark scripts (see tests/bench/longchat/README.md).
// Deterministic synthetic conversations for the long-chat benchmark.
// makeChats({ chats, messages, words }) -> { chats: [{ title, messages: [{ role, content }] }], current: 0, marker }
// Messages alternate user/assistant; each has ~`words` words of prose. Assistant messages mix in markdown:
// every 3rd has a bullet list, every 4th a fenced code block (js/python/rust in turn), every 5th a heading and a table row,
// plus bold/italic/inline code. The last message of the current chat ends with `marker`, so a page can tell when it is shown.
const WORDS = ('the of and to in is it that for on with as was at by this be from or have an are not but can which ' +
  'model token prompt stream answer question memory browser cache render layout worker thread request response json ' +
  'latency context window chat message history search index vector embedding local storage offline network server ' +
  'client state update event queue buffer string number array object function module import export build bundle size ' +
  'fast slow small large simple careful quickly often never always maybe perhaps because therefore however meanwhile ' +
  'user assistant system tool result error retry timeout limit budget scroll paint frame input output text code block ' +
  'list table link image file folder project setting option value default custom theme language translation summary')
  .split(/\s+/);

function rng(seed) { // mulberry32
  let a = seed >>> 0;
  return () => { a = (a + 0x6D2B79F5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}

const CODE = [
  ['js', 'function debounce(fn, ms) {\n  let t;\n  return (...args) => {\n    clearTimeout(t);\n    t = setTimeout(() => fn(...args), ms);\n  };\n}\nconst onInput = debounce((e) => console.log(e.target.value), 150);'],
  ['python', 'def chunks(xs, n):\n    """Yield successive n-sized chunks."""\n    for i in range(0, len(xs), n):\n        yield xs[i:i + n]\n\nfor part in chunks(list(range(20)), 6):\n    print(sum(part), part)'],
  ['rust', 'fn mean(xs: &[f64]) -> Option<f64> {\n    if xs.is_empty() {\n        return None;\n    }\n    Some(xs.iter().sum::<f64>() / xs.len() as f64)\n}\n\nfn main() {\n    println!("{:?}", mean(&[1.0, 2.5, 4.0]));\n}'],
];

function prose(r, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    let w = WORDS[Math.floor(r() * WORDS.length)];
    if (i === 0) w = w[0].toUpperCase() + w.slice(1);
    const x = r();
    if (x < 0.02) w = `**${w}**`; else if (x < 0.04) w = `*${w}*`; else if (x < 0.06) w = '`' + w + '()`';
    out.push(w);
    if (i > 0 && i % 12 === 11 && i < n - 1) out[out.length - 1] += '.';
  }
  return out.join(' ') + '.';
}

export function makeMessage(r, k, role, words) {
  if (role === 'user') return prose(r, words);
  const parts = [];
  const a = Math.floor(words * 0.5), b = words - a;
  if (k % 5 === 0) parts.push(`### Step ${k}`);
  parts.push(prose(r, a));
  if (k % 3 === 0) parts.push(['- ' + prose(r, 5), '- ' + prose(r, 6), '- ' + prose(r, 4)].join('\n'));
  if (k % 4 === 0) { const [lang, src] = CODE[(k / 4) % CODE.length]; parts.push('```' + lang + '\n' + src + '\n```'); }
  if (k % 5 === 0) parts.push('| option | value |\n|---|---|\n| size | ' + k + ' |');
  parts.push(prose(r, b));
  return parts.join('\n\n');
}

export function makeChats({ chats = 1, messages = 2000, words = 60, seed = 42 } = {}) {
  const r = rng(seed);
  const marker = 'ENDMARKQ7Z';
  const out = [];
  let k = 0; // assistant-message counter: picks the markdown features
  for (let c = 0; c < chats; c++) {
    const msgs = [];
    for (let i = 0; i < messages; i++) {
      const role = i % 2 === 0 ? 'user' : 'assistant';
      const n = Math.max(10, Math.round(words * (0.75 + r() * 0.5)));
      msgs.push({ role, content: makeMessage(r, role === 'assistant' ? ++k : 0, role, n) });
    }
    out.push({ title: `Bench chat ${c + 1}: ${prose(r, 4).replace(/[*`().]/g, '')}`, messages: msgs });
  }
  out[0].messages[out[0].messages.length - 1].content += ` ${marker}`;
  return { chats: out, current: 0, marker };
}
