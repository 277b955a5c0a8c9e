import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

describe('loadConfig', () => {
  it('keeps prepared statements on unless SVC_PREPARED_STATEMENTS turns them off', () => {
    expect(loadConfig({}).preparedStatements).toBe(true);
    expect(loadConfig({ SVC_PREPARED_STATEMENTS: '' }).preparedStatements).toBe(true);
    for (const on of ['on', 'true', '1', ' ON ']) expect(loadConfig({ SVC_PREPARED_STATEMENTS: on }).preparedStatements).toBe(true);
    for (const off of ['off', 'false', '0', 'Off']) expect(loadConfig({ SVC_PREPARED_STATEMENTS: off }).preparedStatements).toBe(false);
  });

  it('sizes the pool and bounds searches, a search never past the statement time-out', () => {
    expect(loadConfig({})).toMatchObject({ poolSize: 10, searchTimeoutMs: 10_000, statementTimeoutMs: 30_000 });
    expect(loadConfig({ SVC_POOL_SIZE: '4', SVC_SEARCH_TIMEOUT_MS: '2500' })).toMatchObject({ poolSize: 4, searchTimeoutMs: 2_500 });
    expect(loadConfig({ SVC_STATEMENT_TIMEOUT_MS: '5000' }).searchTimeoutMs).toBe(5_000);
    expect(() => loadConfig({ SVC_POOL_SIZE: '0' })).toThrow(/^SVC_POOL_SIZE: /);
    expect(() => loadConfig({ SVC_SEARCH_TIMEOUT_MS: '50' })).toThrow(/^SVC_SEARCH_TIMEOUT_MS: /);
  });

  it('refuses a value it does not know, naming the variable', () => {
    expect(() => loadConfig({ SVC_PREPARED_STATEMENTS: 'sometimes' })).toThrow(/^SVC_PREPARED_STATEMENTS: must be on or off$/);
    expect(() => loadConfig({ SVC_HTTP_PORT: '70000' })).toThrow(/^SVC_HTTP_PORT: must be a port number/);
    for (const [name, value] of [['SVC_PREPARED_STATEMENTS', 'sometimes'], ['SVC_HTTP_PORT', '70000'], ['SVC_DEFAULT_ACTOR_ID', 'dana']]) {
      let error: { details?: { field?: string } } | undefined;
      try {
        loadConfig({ [name as string]: value });
      } catch (e) {
        error = e as { details?: { field?: string } };
      }
      expect(error?.details?.field).toBe(name);
    }
  });

  it('refuses an SVC_ALLOWED_HOSTS entry that no request could match, naming it, and keeps good ones', () => {
    for (const bad of ['*', 'https://svc.example.com', 'evil.com/path', 'x.com:99999', 'svc.example.com, *', 'user@svc.example.com']) {
      expect(() => loadConfig({ SVC_ALLOWED_HOSTS: bad }), bad).toThrow(/^SVC_ALLOWED_HOSTS: '.*'/);
    }
    expect(() => loadConfig({ SVC_ALLOWED_HOSTS: 'x.com:0' })).toThrow(/^SVC_ALLOWED_HOSTS: 'x.com:0': port must be 1 to 65535/);
    expect(loadConfig({ SVC_ALLOWED_HOSTS: ' Svc.Example.com, svc.example.com:8443,[::1]:8080 ,10.0.0.1,' }).allowedHosts).toEqual([
      'Svc.Example.com',
      'svc.example.com:8443',
      '[::1]:8080',
      '10.0.0.1',
    ]);
  });
});
