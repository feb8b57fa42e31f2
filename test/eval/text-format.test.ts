import { describe, expect, it } from 'vitest';
import { padToWidth, toDisplayWidth, truncateToWidth } from '../../eval/display-width.js';
import { escapeHtml } from '../../eval/escape-html.js';
import { formatMs, formatPercent, formatTable, joinBlocks } from '../../eval/text-table.js';

describe('display width', () => {
  it('counts CJK and Hangul as two terminal columns', () => {
    expect(toDisplayWidth('abc')).toBe(3);
    expect(toDisplayWidth('证明abc')).toBe(7);
    expect(toDisplayWidth('안녕')).toBe(4);
    expect(toDisplayWidth('テスト')).toBe(6);
  });

  it('truncates and pads by columns, not characters', () => {
    expect(truncateToWidth('证明题目', 5)).toBe('证明');
    expect(padToWidth('证', 4, 'end')).toBe('证  ');
    expect(padToWidth('7', 3, 'start')).toBe('  7');
  });
});

describe('formatTable', () => {
  it('left-aligns the label column and right-aligns numbers', () => {
    expect(
      formatTable([
        ['tier', 'n'],
        ['SIMPLE', '5'],
        ['证明', '120'],
      ]),
    ).toEqual(['tier      n', 'SIMPLE    5', '证明    120']);
  });

  it('left-aligns the columns it is told to', () => {
    expect(
      formatTable(
        [
          ['a', 'bb', 'c'],
          ['aaa', 'b', 'cc'],
        ],
        { left: [0, 1] },
      ),
    ).toEqual(['a    bb   c', 'aaa  b   cc']);
  });

  it('joins blocks side by side', () => {
    expect(
      joinBlocks(
        [
          ['ab', 'a'],
          ['x', 'y', 'z'],
        ],
        1,
      ),
    ).toEqual(['ab x', 'a  y', '   z']);
  });
});

describe('number formats', () => {
  it('prints fractions as percentages and milliseconds by size', () => {
    expect(formatPercent(0.6123)).toBe('61.2%');
    expect(formatPercent(0.5, 2)).toBe('50.00%');
    expect([formatMs(0.0412), formatMs(3.2), formatMs(412.4)]).toEqual(['0.041', '3.20', '412']);
  });
});

describe('escapeHtml', () => {
  it('escapes markup and quotes', () => {
    expect(escapeHtml(`<script>alert("x" & 'y')</script>`)).toBe(
      '&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;',
    );
  });
});
