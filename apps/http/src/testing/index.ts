import { request } from 'node:http';

/** An HTTP answer: the status and the body, parsed as JSON when it is JSON, else the text. */
export interface Answer {
  status: number;
  body: unknown;
}

/**
 * One raw HTTP request, for tests that play a client the server must stand: node:http, not fetch, because
 * fetch will not send a Host header of our choosing, nor a body without one.
 */
export function send(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers, timeout: 60_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => {
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // keep the text
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within 60 s`)));
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}
