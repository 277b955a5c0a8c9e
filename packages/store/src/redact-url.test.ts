import { describe, expect, it } from 'vitest';
import { redactUrl } from './connection.js';

describe('redactUrl', () => {
  it('hides a password given in the user part or in the query string, and nothing else', () => {
    expect(redactUrl('postgres://svc:S3cret@db.example:5432/svc?sslmode=disable&password=QueryPW&sslpassword=KeyPW')).toBe(
      'postgres://svc:***@db.example:5432/svc?sslmode=disable&password=***&sslpassword=***',
    );
    expect(redactUrl('postgres://svc@db.example/svc')).toBe('postgres://svc@db.example/svc');
    expect(redactUrl('not a url')).toBe('postgres://(unparseable url)');
  });
});
