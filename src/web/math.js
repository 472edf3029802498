// The math module: typesets one formula the markdown renderer marked (<span class="md-math">,
// `md-display` for display math) as MathML, which Chromium, Firefox and Safari draw themselves
// with the system's math font (nothing to download). Bundled with temml (npm) by
// scripts/build.sh into dist/math-<hash>/math.js; loaded by src/web/rendered.js the first time a
// formula appears.
//
// The TeX comes from model output or a pasted message: untrusted. temml runs with `trust: false`
// (no \href, \url, \class, \style, \includegraphics), its expansions are bounded, and what it
// builds is then kept only as MathML elements with presentation attributes (`clean`): no links,
// no HTML, no event handlers, no URLs.
import temml from 'temml';

// The MathML elements kept; any other element is dropped with its content.
const TAGS = new Set(
  ('math semantics annotation mrow mi mn mo ms mtext mspace msub msup msubsup munder mover ' +
    'munderover mfrac msqrt mroot mtable mtr mtd mlabeledtr mstyle mpadded mphantom menclose ' +
    'merror mmultiscripts mprescripts none').split(' '),
);
// The attributes kept; `style` only as temml sets it (through the style object, which the page's
// CSP allows) and without `url(`.
const ATTRS = new Set(
  ('display displaystyle scriptlevel mathvariant mathcolor mathbackground stretchy fence form ' +
    'separator lspace rspace minsize maxsize movablelimits largeop symmetric accent accentunder ' +
    'linethickness width height depth voffset columnalign rowalign columnspacing rowspacing ' +
    'columnlines rowlines frame notation encoding class style rowspan columnspan').split(' '),
);
const MATHML = 'http://www.w3.org/1998/Math/MathML';
// A length past this many em (\kern{10000em}) is dropped rather than drawn.
const MAX_EM = 50;

export default function init() {}

/** Typesets the marked `span` in place; a formula that does not parse keeps its source. */
export function typeset(span) {
  const display = span.classList.contains('md-display');
  const tex = span.dataset.tex ?? span.textContent;
  const fence = display ? '$$' : '$';
  const out = document.createElement('span');
  try {
    temml.render(tex, out, { displayMode: display, trust: false, throwOnError: true, maxExpand: 200 });
    clean(out);
  } catch (e) {
    span.dataset.typeset = 'error';
    // Satori's words in a reply, which the translator leaves alone: said in the page's language.
    span.title = globalThis.__satoriInLanguage?.('Formula not typeset') || 'Formula not typeset';
    span.textContent = fence + tex + fence;
    return;
  }
  span.dataset.typeset = 'done';
  // The source, for copying (src/web/rendered.js).
  span.dataset.tex = tex;
  span.replaceChildren(...out.childNodes);
}

function clean(root) {
  for (const el of [...root.querySelectorAll('*')]) {
    if (!el.isConnected && !root.contains(el)) continue;
    if (el.namespaceURI !== MATHML || !TAGS.has(el.localName)) {
      el.remove();
      continue;
    }
    for (const { name, value } of [...el.attributes]) {
      const keep =
        ATTRS.has(name) &&
        !/url\s*\(|expression|javascript:/i.test(value) &&
        !tooLong(value);
      if (!keep) el.removeAttribute(name);
    }
  }
}

function tooLong(value) {
  const m = /^\s*(-?[\d.]+)\s*(em|ex|pt|px|mu)?\s*$/.exec(value);
  if (!m) return false;
  const n = Math.abs(parseFloat(m[1]));
  const em = m[2] === 'pt' || m[2] === 'px' ? n / 10 : m[2] === 'mu' ? n / 18 : n;
  return em > MAX_EM;
}
