import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

describe('loadConfig', () => {
  it('keeps prepared statements on unless SVC_PREPARED_STATEMENTS turns them off', () => {
    expect(loadConfig({}).preparedStatements).toBe(true);
    expect(loadConfig({ SVC_PREPARED_STATEMENTS: '' }).preparedStatements).toBe(true);
    for (const on of ['on', 'true', '1', ' ON ']) expect(loadConfig({ SVC_PREPARED_STATEMENTS: on }).preparedStatements).toBe(true);
    for (const off of ['off', 'false', '0', 'Off']) expect(loadConfig({ SVC_PREPARED_STATEMENTS: off }).preparedStatements).toBe(false);
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
});
