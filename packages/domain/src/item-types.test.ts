import { describe, expect, it } from 'vitest';
import { keepItemType, LINK_TYPES, WAIT_LINK_TYPES, waitForEdge } from './item-types.js';

describe('wait-for edges of links', () => {
  it('reads depends forward, blocks backward, and supersedes and conflicts as no waiting', () => {
    expect(Object.fromEntries(LINK_TYPES.map((t) => [t, waitForEdge(t, 'A', 'B')]))).toEqual({
      depends: ['A', 'B'], // A depends on B: A waits on B
      blocks: ['B', 'A'], // A blocks B: B waits on A
      supersedes: null,
      conflicts: null,
    });
    expect(WAIT_LINK_TYPES).toEqual(['depends', 'blocks']);
  });

  it('makes "B depends on A" and "A blocks B" the same wait-for edge', () => {
    expect(waitForEdge('depends', 'B', 'A')).toEqual(waitForEdge('blocks', 'A', 'B'));
  });
});

describe('the item type of a chain', () => {
  it('allows the same type and refuses another, naming the field and both types', () => {
    expect(() => keepItemType('task', 'task')).not.toThrow();
    expect(() => keepItemType('task', 'decision', 'item_type')).toThrow(/^item_type: .*'task'.*'decision'/);
    let thrown: unknown;
    try {
      keepItemType('qa_check', 'decision');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'invalid_input', details: { field: 'item_type', item_type: 'qa_check' } });
  });
});
