import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSourceUrl, isSourceUrl } from './source-url.js';

describe('isSourceUrl', () => {
  it('accepts absolute http and https URLs with a host', () => {
    for (const url of ['http://example.com', 'https://example.com/a?b=c#d', 'HTTPS://Example.com', 'http://127.0.0.1:8080/x', 'https://[::1]/', 'https://user@example.com/a%20b']) {
      expect([url, isSourceUrl(url)]).toEqual([url, true]);
    }
  });

  it('refuses other schemes, relative URLs, a missing host and text a parser would drop or reinterpret', () => {
    for (const url of [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      'mailto:someone@example.com',
      'ftp://example.com/',
      '//example.com/x',
      '/x',
      'example.com',
      'https:example.com',
      'https:/example.com',
      'https://',
      'https://:80/',
      'https:\\\\evil.example',
      'https://evil.example\\@good.example/',
      'https://exa mple.com/',
      'https://example.com/\tx',
      'https://example.com/\nx',
      'ht\ttps://example.com',
      ' https://example.com',
      'https://example.com/\u00a0',
      `https://example.com/${'a'.repeat(2048)}`,
      '',
    ]) {
      expect([url, isSourceUrl(url)]).toEqual([url, false]);
    }
  });

  it('accepts only what starts with http:// or https:// (any case), whatever else the text holds', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        if (isSourceUrl(text)) expect(text).toMatch(/^https?:\/\/[^\s\\]/i);
      }),
    );
  });
});

describe('checkSourceUrl', () => {
  it('names the field and shortens a long value in the message', () => {
    expect(() => checkSourceUrl(`javascript:${'x'.repeat(500)}`, 'decisions[2].source_url')).toThrow(
      expect.objectContaining({ code: 'invalid_input', details: { field: 'decisions[2].source_url' }, message: expect.stringMatching(/^decisions\[2\]\.source_url: 'javascript:x+…' is not an absolute http\(s\) URL/) }),
    );
    expect(() => checkSourceUrl('https://example.com', 'source_url')).not.toThrow();
  });
});
