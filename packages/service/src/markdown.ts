import { shortId } from '@svc/domain';

/** One line of user text inside markdown: no line breaks, no markup that could open a heading or list. */
export function inline(text: string, max = 120): string {
  const flat = text.replace(/[\r\n\t]+/g, ' ').replace(/\s+/g, ' ').trim();
  const cut = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  return cut.replace(/([\\`*_[\]#<>|])/g, '\\$1');
}

export function ref(id: string): string {
  return `\`${shortId(id)}\``;
}

export function day(isoTime: string): string {
  return isoTime.slice(0, 10);
}
