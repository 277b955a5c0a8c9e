import MarkdownIt from 'markdown-it';

/**
 * Markdown for stored text (item bodies, the brief): raw HTML off, so `<script>` stays text; links only to
 * http(s) and mailto (markdown-it's own check already refuses javascript:, vbscript:, file: and most data:);
 * no images, which would load from wherever the author pointed.
 */
const md = new MarkdownIt({ html: false, linkify: false, typographer: false }).disable(['image']);
md.validateLink = (url: string) => /^(https?:|mailto:)/i.test(url.trim());
const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]?.attrSet('rel', 'noopener noreferrer nofollow');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

/**
 * Longest text rendered as markdown. Some inputs cost markdown-it more than linear time (a 1 MiB body of `[` took
 * 4.5 s on every view); a longer text is shown as it was written, in a <pre>, which costs nothing to lay out.
 */
export const MARKDOWN_LIMIT = 100_000;

export function renderMarkdown(text: string): string {
  if (text.length > MARKDOWN_LIMIT) return `<pre class="long-text">${md.utils.escapeHtml(text)}</pre>`;
  return md.render(text);
}
