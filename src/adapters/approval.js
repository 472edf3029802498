// "Allow tool call": the question agent mode asks before a tool call leaves the browser (the rule
// is crates/core/src/agent/trust.rs; src/adapters/approval.rs calls this). A modal <dialog> on
// the page, drawn without Leptos (the agent module has none): what the call would send, exactly,
// and to whom. Esc is "Deny"; Stop (the signal) closes it. Focus starts on "Deny" and returns
// where it was. Texts are English; the page's translator makes them Chinese as they are drawn.

// Resolves to 'once', 'always', 'deny', or 'stopped' when `signal` aborts first. `question`:
// {tool, server, address, why, args} — the tool's name on its server, the server's name and
// origin, why Satori asks, and the arguments as they would be sent.
export function askToolCall(tool, server, address, why, args, signal) {
  const question = { tool, server, address, why, args };
  return new Promise((resolve) => {
    if (signal.aborted) return resolve('stopped');
    const opener = document.activeElement;
    const dialog = document.createElement('dialog');
    dialog.className = 'allow-call';
    dialog.setAttribute('aria-labelledby', 'allow-call-title');
    dialog.setAttribute('aria-describedby', 'allow-call-why');
    const heading = text('h2', 'Allow tool call');
    heading.id = 'allow-call-title';
    const why = text('p', question.why);
    why.id = 'allow-call-why';
    const facts = document.createElement('dl');
    // Names, addresses and arguments are the server's and the model's words: never translated.
    fact(facts, 'Tool', text('code', question.tool, '', true));
    const server = text('span', question.server, '', true);
    server.append(' ', text('span', question.address, 'hint', true));
    fact(facts, 'Server', server);
    fact(facts, 'Arguments', text('pre', question.args, '', true));
    const actions = document.createElement('div');
    actions.className = 'dialog-actions';
    const buttons = [['Deny', 'deny'], ['Always allow this tool', 'always'], ['Allow once', 'once']].map(
      ([label, answer]) => {
        const b = text('button', label, answer === 'once' ? 'primary' : '');
        b.type = 'button';
        b.addEventListener('click', () => finish(answer));
        actions.append(b);
        return b;
      },
    );
    dialog.append(heading, why, facts, actions);
    let done = false;
    const finish = (answer) => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', stopped);
      if (dialog.open) dialog.close();
      dialog.remove();
      if (opener && opener.isConnected && typeof opener.focus === 'function') opener.focus();
      resolve(answer);
    };
    const stopped = () => finish('stopped');
    signal.addEventListener('abort', stopped);
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      finish('deny');
    });
    // Esc answers this question only: the page's own Esc (which stops a run) never sees it.
    dialog.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') e.stopPropagation();
    });
    document.body.append(dialog);
    dialog.showModal();
    buttons[0].focus();
  });
}

function text(tag, content, className, theirs = false) {
  const el = document.createElement(tag);
  el.textContent = content;
  if (className) el.className = className;
  if (theirs) el.translate = false;
  return el;
}

function fact(list, term, value) {
  const dd = document.createElement('dd');
  dd.append(value);
  list.append(text('dt', term), dd);
}
