#!/usr/bin/env node
// Writes tests/fixtures/tokens/cases.json: token ids of a varied corpus under o200k_base and
// cl100k_base, by js-tiktoken (the reference: the same ranks and split patterns as tiktoken) and
// cross-checked against gpt-tokenizer. Run once after changing the corpus or the pinned
// packages; the output is committed and read by tests/bpe.rs.
//
//   node scripts/bpe-fixtures.mjs            (from the repository root)
//
// Deterministic (own PRNG). Texts where gpt-tokenizer disagrees with js-tiktoken are printed and
// listed in the file (`disagreements`); --strict makes them an error. Known cause: tiktoken (and
// js-tiktoken) first look the whole piece up, and a few tokens cannot be reached by merging —
// "\ufeff" (U+FEFF, the BOM) is token 5574 in o200k_base, gpt-tokenizer gives [5416, 123].
import { writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import * as gptO200k from 'gpt-tokenizer/encoding/o200k_base';
import * as gptCl100k from 'gpt-tokenizer/encoding/cl100k_base';

const OUT = 'tests/fixtures/tokens/cases.json';
const version = (p) => JSON.parse(readFileSync(`node_modules/${p}/package.json`, 'utf8')).version;

// ---------------------------------------------------------------- corpus
const texts = [];
const add = (...t) => texts.push(...t);

// English prose, casing, punctuation
add(
  'Hello, world!',
  'The quick brown fox jumps over the lazy dog.',
  'THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG!!!',
  'tHe QuIcK bRoWn FoX',
  'It was the best of times, it was the worst of times, it was the age of wisdom…',
  '"Quoted," she said — and left. (Parenthetical; semicolon: colon.)',
  'e.g. i.e. etc. Mr. Dr. U.S.A. a.m. p.m.',
  'camelCaseIdentifier PascalCaseName snake_case_name SCREAMING_SNAKE kebab-case-name',
  'HTMLParser XMLHttpRequest getHTTPResponseCode iOS macOS',
  'Supercalifragilisticexpialidocious antidisestablishmentarianism',
  'https://example.com/path/to/page?query=1&other=two#frag',
  'user.name+tag@example.co.uk',
  '/usr/local/bin/node --version && echo "done"',
  'C:\\Users\\name\\Documents\\file.txt',
  '$100.00, €50, £20, ¥1000, 50% off, #hashtag, @mention',
  'a', ' ', '', '\n', '.', 'A', '!', "'", '"',
);
// Contractions in every case and context
for (const c of ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d"]) {
  const variants = new Set([c, c.toUpperCase(), c[0] + c[1].toUpperCase() + c.slice(2), c.slice(0, 2) + c.slice(2).toUpperCase()]);
  for (const v of variants) add(`it${v} he${v} THEY${v} x${v}y ${v} 1${v}`);
}
add(
  "I'm sure you're right, we've said it'll be fine and he'd agree; it's John's, isn't it?",
  "I'M SURE YOU'RE RIGHT, WE'VE SAID IT'LL BE FINE AND HE'D AGREE; IT'S JOHN'S, ISN'T IT?",
  "don't DON'T Don'T doN't rock'n'roll o'clock 'tis ''s '''",
  "it’s curly ‘quoted’ — not an ASCII contraction’s",
  "the 'quick' fox's tail; foxes' tails; 'S 'T 'RE 'Ve",
);
// Chinese, Japanese, Korean and other scripts
add(
  '你好，世界！今天天气很好，我们去公园散步吧。',
  '人工智能是计算机科学的一个分支，它企图了解智能的实质，并生产出一种新的能以人类智能相似的方式做出反应的智能机器。',
  '中华人民共和国成立于一九四九年十月一日，首都北京。',
  '这是一个没有标点符号的很长的句子用来测试分词器在处理连续汉字时的表现以及合并的正确性和速度',
  '日本語のテキストです。ひらがな、カタカナ、漢字が混ざっています。',
  'ｶﾀｶﾅ（半角）と全角ＡＢＣ１２３',
  '안녕하세요, 세계! 한국어 문장을 토큰화합니다.',
  'Привет, мир! Съешь же ещё этих мягких французских булок.',
  'Γειά σου Κόσμε! ΑΒΓΔ αβγδ',
  'مرحبا بالعالم! هذا نص عربي.',
  'שלום עולם',
  'नमस्ते दुनिया! यह हिंदी पाठ है।',
  'สวัสดีชาวโลก',
  'Xin chào thế giới! Tiếng Việt có dấu.',
  'Ängstliche Größe, façade, naïve, coöperate, Ørsted, Łódź, İstanbul, ǅemal, ǈ',
  'ÉCOLE école ÉcOlE',
  'ß ẞ ﬁ ﬂ ǆ Ǆ ǅ',
  'mixed 中文 and English 混合 text with 日本語 and 한국어',
);
// Code in several languages
add(
  'fn main() {\n    let x: Vec<u32> = (0..10).map(|i| i * 2).collect();\n    println!("{:?}", x);\n}\n',
  'def fib(n):\n    """Return the n-th Fibonacci number."""\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n',
  'const f = async (x) => { await fetch(`/api/${x}`); return x ?? null; };',
  '#include <stdio.h>\nint main(void) {\n\tprintf("%d\\n", 42);\n\treturn 0;\n}\n',
  'SELECT id, name FROM users WHERE created_at >= \'2024-01-01\' ORDER BY id DESC LIMIT 10;',
  '<div class="note" data-id="7"><p>Hi &amp; bye</p></div>',
  'body { margin: 0; padding: 0 1rem; color: #333; }\n@media (max-width: 600px) { .x { display: none } }',
  'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hi")\n}\n',
  '    if (a != b && c <= d || !e) { x += 1; y -= 2; z *= 3; w /= 4; }',
  '$ ls -la | grep "\\.rs$" | wc -l\n> 42\n',
  '```rust\nlet s = "x";\n```\n\n# Heading\n\n- item 1\n- item 2\n\n> quote\n',
  'x=1;y=2;z=x+y;print(z)#comment',
  '\t\tindented\twith\ttabs\n\t\t\tand more\n',
  '// comment\n/* block\n   comment */\n/// doc comment\n//! inner\n',
  'regex: ^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$',
);
// JSON
add(
  '{"name": "Satori", "version": 1, "tags": ["chat", "llm"], "nested": {"a": null, "b": true, "c": 3.14}}',
  '[{"id":1,"ok":false},{"id":2,"ok":true}]',
  JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi!\nHow are you?' }], temperature: 0.7 }, null, 2),
  '{"emoji": "\\ud83d\\ude00", "escaped": "line\\nbreak \\"quote\\""}',
);
// Numbers and IDs
add(
  '0 1 12 123 1234 12345 123456 1234567 12345678 123456789 1234567890',
  'PRE202601001 PRE202601002 INV-2026-0001 order#A1B2C3D4 SKU_99887766',
  '3.14159265358979 2.718281828 -42 +7 1e-10 6.022e23 0x1F 0b1010 0o777',
  '2026-01-15T12:34:56.789Z 12:00 PM 1,234,567.89 1.234.567,89',
  'uuid 550e8400-e29b-41d4-a716-446655440000 sha 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  '٠١٢٣٤٥٦٧٨٩ ০১২৩ ०१२३ ½ ¾ ⅔ Ⅻ ① ²³',
  '+1 (555) 123-4567 ext. 89',
  'v1.2.3-beta.4+build.567',
);
// Emoji: ZWJ sequences, flags, skin tones, keycaps
add(
  '😀😃😄😁😆😅😂🤣',
  '👨‍👩‍👧‍👦 family, 👩‍💻 technologist, 🏳️‍🌈 flag, 🧑🏽‍🚀 astronaut',
  '🇺🇸🇬🇧🇯🇵🇩🇪🇫🇷🇨🇳 flags',
  '👍🏻👍🏼👍🏽👍🏾👍🏿 skin tones',
  '1️⃣ 2️⃣ #️⃣ *️⃣ keycaps ©️ ®️ ™️',
  'I love 🦀 Rust and ☕ coffee! ❤️🔥',
  '🏴󠁧󠁢󠁳󠁣󠁴󠁿 Scotland tag sequence',
  '🙂 🙃 🫠 🫡 🫥 🫶🏽 newer emoji',
  '😀'.repeat(40),
  'text😀text😀😀text 😀 😀  😀',
);
// Adversarial: whitespace runs, CRLF, repeated characters, combining marks, blobs
add(
  ' '.repeat(100),
  ' '.repeat(1000) + 'x',
  'x' + ' '.repeat(257) + 'y',
  '\t'.repeat(50) + 'tab',
  '\n'.repeat(100),
  '\r\n'.repeat(50),
  'line one\r\nline two\r\n\r\nline four\r\n',
  'a \n b \n\n c   \n   d\t\n\te',
  ' \n \n \n x',
  'trailing spaces   ',
  '   leading spaces',
  ' \u00a0 \u2003 \u3000 \ufeff \u0085 \u2028 \u2029 \u200b unusual spaces',
  'a'.repeat(3000),
  'ab'.repeat(1000),
  '.'.repeat(500),
  '!?'.repeat(300),
  '-'.repeat(80) + '\n' + '='.repeat(80),
  '0'.repeat(200),
  '中'.repeat(300),
  'e\u0301'.repeat(100),
  'Z̷̢̛̛̯̲̦̤̭̗̞̈́̓͒̉̒a̶̧̛͍̩̩̗̓͐̑͛͘l̸̨̰̫̗̹͔̓̊͂̓g̸̢̱̖͓͈̒̀͆̽͝o̵̧̜̮̻͓̽́̾͊̀ text',
  'n\u0303o\u0308 A\u030a \u0301\u0301\u0301 combining',
  'ÅÅ (U+00C5 and A+ring) ﻿BOM',
  'SGVsbG8gV29ybGQhIFRoaXMgaXMgYSBiYXNlNjQgZW5jb2RlZCBzdHJpbmcgd2l0aG91dCBhbnkgc3BhY2VzIGF0IGFsbC4=',
  'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo'.repeat(30),
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab',
  'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAaaaaaaaaaaaaaaa',
  'ᴬᴮᴰ ʰᵉˡˡᵒ modifier letters ʰʰʰA',
  '\u0000\u0001\u0002\u001f control\u007f chars',
  '\uFFFD replacement \uFFFF nonchar \u{10FFFF} max \u{1D400}\u{1D41A} math bold',
  '<|endoftext|> is plain text here <|fim_prefix|>',
  "'''' '''s ''t '",
  '//// ///a\n/\n/x /// \n//',
);

// Generated mixtures (deterministic splitmix64)
let seed = 0x5a7021n;
const next = () => {
  seed = (seed + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
  let z = seed;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
  return Number((z ^ (z >> 31n)) & 0xffffffffn);
};
const pick = (a) => a[next() % a.length];
const fragments = [
  'the', 'The', 'THE', ' of', ' and', "n't", "'s", "'LL", "'Re", 'token', 'Tokenizer', 'ÉTÉ', 'été',
  '中文', '日本', 'テスト', '한국', 'мир', 'ΑΒΓ', '123', '4567', '٣', '😀', '👨‍👩‍👧', '🇫🇷', 'e\u0301',
  '\u0301', ' ', '  ', '   ', '\t', '\n', '\r\n', '\n\n', ' \n', '\u00a0', '\u3000', '.', ',', '!',
  '?', '/', '//', '\\', '"', "'", '(', ')', '{', '}', '[', ']', '<', '>', '=', '+', '-', '_', '*',
  '#', '@', '$', '%', '^', '&', '|', '~', '`', ':', ';', 'PRE2026', 'x', 'Q', 'ǅ', 'ß', 'ʰ', 'Ⅻ',
];
for (let i = 0; i < 80; i++) {
  const n = 3 + (next() % 40);
  let s = '';
  for (let k = 0; k < n; k++) s += pick(fragments);
  add(s);
}

// ---------------------------------------------------------------- encode and cross-check
const ref = { o200k_base: new Tiktoken(o200k), cl100k_base: new Tiktoken(cl100k) };
const other = { o200k_base: gptO200k, cl100k_base: gptCl100k };
const cases = [];
const disagreements = [];
const seen = new Set();
for (const text of texts) {
  if (seen.has(text)) continue;
  seen.add(text);
  for (const encoding of ['o200k_base', 'cl100k_base']) {
    // Special-token text (`<|endoftext|>`) is ordinary text here, as in the counter.
    const ids = ref[encoding].encode(text, [], []);
    const theirs = other[encoding].encode(text, { disallowedSpecial: new Set() });
    if (ids.length !== theirs.length || ids.some((x, i) => x !== theirs[i])) {
      disagreements.push({ encoding, text, gptTokenizerCount: theirs.length });
    }
    cases.push({ encoding, text, count: ids.length, ids });
  }
}
for (const d of disagreements) console.error(`gpt-tokenizer disagrees (${d.encoding}): ${JSON.stringify(d.text).slice(0, 80)}`);
if (disagreements.length && process.argv.includes('--strict')) process.exit(1);
mkdirSync('tests/fixtures/tokens', { recursive: true });
const out = {
  about: 'Token ids by js-tiktoken, cross-checked against gpt-tokenizer; written by scripts/bpe-fixtures.mjs, read by tests/bpe.rs.',
  'js-tiktoken': version('js-tiktoken'),
  'gpt-tokenizer': version('gpt-tokenizer'),
  unicode: process.versions.unicode,
  disagreements,
  cases,
};
// One case per line: small diffs when the corpus changes.
const body = cases.map((c) => '    ' + JSON.stringify(c)).join(',\n');
const head = JSON.stringify({ ...out, cases: [] }, null, 2).replace(/"cases": \[\]\n\}$/, '');
writeFileSync(OUT, `${head}"cases": [\n${body}\n  ]\n}\n`);
JSON.parse(readFileSync(OUT, 'utf8'));
console.log(`${OUT}: ${seen.size} texts, ${cases.length} cases, ${disagreements.length} disagreements with gpt-tokenizer`);
