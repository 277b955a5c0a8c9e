import { createHash } from 'node:crypto';

/**
 * The page's only style sheet and script, kept in the module (so `tsc` output carries them without a copy step)
 * and served under a path named by their content hash: cached for a year, replaced by a new name on change.
 * The Content-Security-Policy allows scripts and styles from this origin only, so nothing here may be inline.
 */
const CSS = `
:root { color-scheme: light; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #ffffff; --soft: #f6f8fa;
  --accent: #0550ae; --warn: #9a6700; --err: #b3261e; --ok: #1a7f37; --mark: #fff3b0; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: var(--bg); padding: .5rem; }
.skip:focus { left: .5rem; }
header.top { display: flex; gap: 1rem; align-items: baseline; flex-wrap: wrap; padding: .6rem 1rem; border-bottom: 1px solid var(--line); background: var(--soft); }
header.top .brand { font-weight: 700; text-decoration: none; color: var(--fg); }
header.top nav ul { display: flex; gap: .9rem; list-style: none; margin: 0; padding: 0; flex-wrap: wrap; }
header.top nav a[aria-current="page"] { font-weight: 700; text-decoration: none; color: var(--fg); }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: .4rem 0 1rem; }
h2 { font-size: 1.15rem; margin: 1.4rem 0 .5rem; }
h3 { font-size: 1rem; margin: 1rem 0 .4rem; }
.muted { color: var(--muted); }
.notice { border: 1px solid var(--line); background: var(--soft); padding: .6rem .8rem; border-radius: 6px; margin: .6rem 0; }
.notice.error { border-color: var(--err); color: var(--err); }
.notice.done { border-color: var(--ok); }
ul.cards { list-style: none; padding: 0; margin: 0; }
ul.cards > li { border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem; margin: .5rem 0; }
ul.cards > li:focus-within, ul.cards > li.current { border-color: #0969da; box-shadow: 0 0 0 1px #0969da; }
.tag { display: inline-block; font-size: .8rem; padding: 0 .4rem; border-radius: 1rem; border: 1px solid var(--line); background: var(--soft); margin-right: .25rem; }
.sev-error { color: var(--err); border-color: var(--err); }
.sev-warn { color: var(--warn); border-color: var(--warn); }
.stale { color: var(--warn); border-color: var(--warn); }
mark { background: var(--mark); color: inherit; }
pre, code { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
pre { white-space: pre-wrap; word-break: break-word; background: var(--soft); padding: .5rem; border-radius: 4px; }
.prose { overflow-wrap: anywhere; }
form.inline { display: inline; }
[hidden] { display: none !important; }
form.stack, div.stack { display: grid; gap: .35rem; max-width: 40rem; margin: .4rem 0; }
label { font-weight: 600; }
input[type=text], input[type=search], input[type=url], select, textarea { font: inherit; padding: .3rem .4rem; border: 1px solid #8c959f; border-radius: 4px; max-width: 100%; }
textarea { width: 100%; min-height: 4rem; }
button { font: inherit; padding: .25rem .7rem; border: 1px solid #8c959f; border-radius: 4px; background: var(--soft); cursor: pointer; color: var(--fg); }
button.danger { border-color: var(--err); color: var(--err); }
.actions { display: flex; flex-wrap: wrap; gap: .4rem; align-items: flex-start; margin-top: .4rem; }
details > summary { cursor: pointer; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid var(--line); padding: .25rem .4rem; text-align: left; vertical-align: top; }
table.diff td { font: 13px/1.45 ui-monospace, monospace; white-space: pre-wrap; word-break: break-word; width: 50%; }
table.diff td.del { background: #ffebe9; }
table.diff td.ins { background: #dafbe1; }
table.diff td.empty { background: var(--soft); }
.board { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: .8rem; }
.board section { border: 1px solid var(--line); border-radius: 6px; padding: .4rem .6rem; }
.graph { overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
.graph svg { display: block; }
.graph .node rect { fill: #ddf4ff; stroke: #0969da; }
.graph .node.root rect { fill: #fff8c5; stroke: #9a6700; }
.graph .node text { fill: var(--fg); font-size: 12px; }
.graph .node:focus rect, .graph .node:hover rect { stroke-width: 3; }
.graph .edge path { fill: none; stroke: #57606a; stroke-width: 1.5; }
.graph .edge text { fill: var(--muted); font-size: 11px; }
.graph marker path { fill: #57606a; }
kbd { border: 1px solid var(--line); border-bottom-width: 2px; border-radius: 3px; padding: 0 .3rem; font-size: .85em; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

/**
 * Keyboard navigation and the inbox shortcuts. Lists marked data-nav take j/k (next/previous entry); on an
 * inbox entry: a annotate, s set state, p promote, r redact (its confirmation page), x discard (asks first).
 * Reading and every form work without it.
 */
const JS = `
(function () {
  'use strict';
  function entries() { return Array.prototype.slice.call(document.querySelectorAll('[data-nav] > li')); }
  function current() {
    var list = entries();
    for (var i = 0; i < list.length; i++) if (list[i].contains(document.activeElement)) return i;
    return -1;
  }
  function focusEntry(i) {
    var list = entries();
    if (!list.length) return;
    var n = Math.max(0, Math.min(list.length - 1, i));
    list.forEach(function (li) { li.classList.remove('current'); });
    list[n].classList.add('current');
    var target = list[n].querySelector('[data-nav-focus]') || list[n].querySelector('a, button, input, textarea, select');
    if (target) target.focus();
  }
  function typing(e) {
    var t = e.target;
    return t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
  }
  document.addEventListener('keydown', function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (typing(e)) { if (e.key === 'Escape') e.target.blur(); return; }
    if (e.key === '/') {
      var search = document.querySelector('input[type=search]');
      if (search) { e.preventDefault(); search.focus(); }
      return;
    }
    if (e.key === 'j') { e.preventDefault(); focusEntry(current() + 1); return; }
    if (e.key === 'k') { e.preventDefault(); focusEntry(current() - 1); return; }
    var i = current();
    if (i < 0) return;
    var entry = entries()[i];
    var map = { a: 'annotate', s: 'state', p: 'promote', r: 'redact', x: 'discard' };
    var action = map[e.key];
    if (!action) return;
    var el = entry.querySelector('[data-key="' + action + '"]');
    if (!el) return;
    e.preventDefault();
    if (el.tagName === 'A') { el.click(); return; }
    if (el.tagName === 'BUTTON') { el.click(); return; }
    var details = el.closest('details');
    if (details) details.open = true;
    el.focus();
  });
  // A field only one item type takes (research's source_url): shown, enabled and required for that type only.
  function typeFields(select) {
    var form = select.form;
    if (!form) return;
    Array.prototype.forEach.call(form.querySelectorAll('[data-show-for-type]'), function (box) {
      var on = box.getAttribute('data-show-for-type') === select.value;
      box.hidden = !on;
      Array.prototype.forEach.call(box.querySelectorAll('input'), function (input) { input.disabled = !on; input.required = on; });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll('select[data-type-select]'), typeFields);
  document.addEventListener('change', function (e) {
    if (e.target && e.target.matches && e.target.matches('select[data-type-select]')) typeFields(e.target);
  });
  document.addEventListener('submit', function (e) {
    var form = e.target;
    var question = form && form.getAttribute('data-confirm');
    if (question && !window.confirm(question)) e.preventDefault();
  });
})();
`;

function asset(body: string, type: string) {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { body, type, hash };
}

export const STATIC = {
  css: asset(CSS, 'text/css; charset=utf-8'),
  js: asset(JS, 'text/javascript; charset=utf-8'),
} as const;

export const CSS_PATH = `/static/${STATIC.css.hash}/app.css`;
export const JS_PATH = `/static/${STATIC.js.hash}/app.js`;
