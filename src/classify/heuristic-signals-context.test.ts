import { describe, expect, it } from 'vitest';
import { toClassifyInput } from './classify-input.js';
import { CONTEXT_DERIVED_SIGNALS, toTextOutsideFences } from './heuristic-signals-context.js';
import { scoreHeuristics } from './heuristics.js';

const CODE = 'const total = items.reduce((sum, item) => sum + item.price, 0);\n'.repeat(40);
const fires = (content: string): boolean =>
  scoreHeuristics(toClassifyInput({ messages: [{ role: 'user', content }] })).signals.includes(
    'small_task_on_code',
  );

describe('small_task_on_code', () => {
  it('is one derived signal with a MODERATE ceiling', () => {
    expect(CONTEXT_DERIVED_SIGNALS.map(({ name, ceiling }) => [name, ceiling])).toEqual([
      ['small_task_on_code', 'MODERATE'],
    ]);
  });

  it('fires on a small task after or before a long fenced file', () => {
    expect(fires(`\`\`\`ts\n${CODE}\`\`\`\nrename the variable total to sum`)).toBe(true);
    expect(fires(`add a docstring to this:\n\`\`\`js\n${CODE}\`\`\``)).toBe(true);
    expect(fires(`\`\`\`ts\n${CODE}\`\`\`\n이 파일은 뭐 하는 거야?`)).toBe(true);
  });

  it('does not fire without attached code, on short code or on a larger task', () => {
    expect(fires('rename the variable total to sum')).toBe(false);
    expect(fires('```ts\nconst a = 1;\n```\nrename the variable a to b')).toBe(false);
    expect(fires(`\`\`\`ts\n${CODE}\`\`\`\nwhy is this slow? profile it and rewrite it`)).toBe(false);
    expect(fires(`${CODE}\nrename the variable total to sum`)).toBe(false);
    const longInstruction = `rename the variable total to sum, ${'and then port the whole module to Rust with tests '.repeat(4)}`;
    expect(fires(`\`\`\`ts\n${CODE}\`\`\`\n${longInstruction}`)).toBe(false);
  });
});

describe('toTextOutsideFences', () => {
  it('keeps the text between and around fenced blocks', () => {
    expect(toTextOutsideFences('fix this\n```\ncode\n```\nplease')).toBe('fix this\n \nplease');
    expect(toTextOutsideFences('no fences here')).toBeUndefined();
  });
});
