import type { CodeOptions } from 'ajv';
import { RE2JS } from 're2js';
import { invalidInput } from './errors.js';

type RegExpEngine = NonNullable<CodeOptions['regExp']>;

/**
 * Item-type schemas are written by anyone who can reach the service, and their `pattern`s run on every write.
 * JavaScript's backtracking RegExp takes exponential time on patterns such as `^(a+)+$`, and one such match
 * blocks the whole process; RE2 (here its pure-JavaScript port, re2js: no native addon to build) matches in
 * time linear in the input, whatever the pattern. It has no backreferences and no lookaround, so a schema
 * that uses them is refused when the type is registered. docs/decisions/0013.
 */
function compileLinear(pattern: string): RE2JS {
  // translateRegExp turns the JavaScript spellings JSON Schema patterns use (\uXXXX, (?<name>…)) into RE2's.
  return RE2JS.compile(RE2JS.translateRegExp(pattern));
}

/** The engine ajv runs `pattern` and `patternProperties` on (its `code.regExp` option). */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    const re = compileLinear(pattern);
    // ajv keys the compiled patterns of a schema by toString(): it must tell patterns apart.
    return { test: (s: string) => re.test(s), toString: () => `/${pattern}/` };
  },
  // Only read when ajv generates standalone code, which svc never does.
  { code: 'linearRegExp' },
);

// Values of these keywords are data, not schemas: a `pattern` inside them is just a string.
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

/**
 * Refuse a schema holding a `pattern` or a `patternProperties` key that the linear engine cannot run,
 * naming where it is (e.g. `schema.properties.code.pattern`). Walks without recursion: the schema may come
 * from an import file, which the input gate's depth limit did not see.
 */
export function checkSchemaPatterns(schema: unknown, field = 'schema'): void {
  const stack: [unknown, string][] = [[schema, field]];
  while (stack.length > 0) {
    const [node, path] = stack.pop() as [unknown, string];
    if (node === null || typeof node !== 'object') continue;
    const entries: [string, unknown][] = Array.isArray(node)
      ? node.map((v, i) => [`[${i}]`, v])
      : Object.entries(node as Record<string, unknown>).map(([k, v]) => [`.${k}`, v]);
    for (const [step, value] of entries) {
      const key = step.slice(1);
      if (!Array.isArray(node) && DATA_KEYWORDS.has(key)) continue;
      if (!Array.isArray(node) && key === 'pattern' && typeof value === 'string') check(value, `${path}${step}`);
      if (!Array.isArray(node) && key === 'patternProperties' && value !== null && typeof value === 'object') {
        for (const pattern of Object.keys(value)) check(pattern, `${path}${step}`);
      }
      stack.push([value, `${path}${step}`]);
    }
  }
}

function check(pattern: string, path: string): void {
  try {
    compileLinear(pattern);
  } catch (error) {
    const reason = (error as Error).message.replace(/^error parsing regexp: /, '');
    throw invalidInput(
      path,
      `the pattern '${pattern}' cannot run on the linear-time engine (RE2): ${reason}; backreferences and lookaround are not supported`,
    );
  }
}
