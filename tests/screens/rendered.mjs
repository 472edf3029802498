// Screenshots of rendered replies (not a test): formulas typeset as MathML (inline, display, a
// matrix, one that does not parse), an html code block's "Preview" open with its scripts run and
// a mermaid diagram, in light and dark,
// desktop and phone width.
// usage: node tests/screens/rendered.mjs [outdir]
import { configure } from '../e2e/support/browser.mjs';
import { stage } from './stage.mjs';

const { out, web, fake, browser, close } = await stage();
const MATH = [
  'The integral is $\\int_0^1 x\\,dx = \\frac{1}{2}$, and the sum of the first $n$ numbers:\n\n',
  '$$\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}$$\n\n',
  'A rotation by \\(\\theta\\):\n\n\\[R(\\theta) = \\begin{pmatrix}\\cos\\theta & -\\sin\\theta \\\\ \\sin\\theta & \\cos\\theta\\end{pmatrix}\\]\n\n',
  'Prices stay prices: $5 and $10. This one does not parse: $\\frac{1}$.',
];
const PAGE = ['Here is a card:\n\n```html\n',
  '<!doctype html><style>body{font:16px system-ui;margin:16px}.card{padding:16px;border-radius:12px;background:#eef;color:#223}</style>',
  '<div class="card"><h3>Hello</h3><p id="t">…</p></div><script>document.getElementById("t").textContent = "Drawn by its own script at " + new Date().toLocaleTimeString();</script>',
  '\n```\n'];
try {
  for (const scheme of ['light', 'dark']) {
    for (const [label, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 800 }]]) {
      const ctx = await browser.newContext({ colorScheme: scheme, viewport, hasTouch: label === 'phone' });
      const page = await ctx.newPage();
      await page.goto(web.url);
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.waitFor();
      await configure(page, { baseUrl: fake.baseUrl, model: 'fake-small', apiKey: 'sk-demo' });
      fake.enqueue({ chunks: MATH });
      await box.fill('What is \\(\\int_0^1 x\\,dx\\)?');
      await box.press('Enter');
      await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
      await page.waitForFunction(() => document.querySelectorAll('.md-math[data-typeset]').length >= 5);
      await page.screenshot({ path: `${out}/${scheme}-${label}-math.png` });
      fake.enqueue({ chunks: PAGE });
      await box.fill('Make me a card');
      await box.press('Enter');
      await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
      await page.getByRole('button', { name: 'Preview', exact: true }).last().click();
      await page.getByRole('button', { name: 'Run scripts', exact: true }).last().click();
      await page.frameLocator('.code-preview iframe').locator('.card').waitFor();
      await page.waitForTimeout(300);
      await page.screenshot({ path: `${out}/${scheme}-${label}-preview.png` });
      fake.enqueue({ chunks: ['The release flow:\n\n```mermaid\n', 'graph LR\n  A[Draft] --> B{Review}\n  B -->|approved| C[Release]\n  B -->|changes| A\n', '```\n'] });
      await box.fill('Draw the release flow');
      await box.press('Enter');
      await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
      await page.locator('.code-diagram.drawn').last().waitFor({ timeout: 60_000 });
      await page.locator('.code-diagram.drawn').last().scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${out}/${scheme}-${label}-diagram.png` });
      await ctx.close();
    }
  }
} finally {
  await close();
}
