import { WINDOW_CHARACTERS } from './text-counter.js';
import { toWindowCut } from './window-cut.js';

export interface SegmentRange {
  start: number;
  end: number;
}

/**
 * Splits a text into at most `segments` consecutive ranges of about equal length, each boundary one
 * of the window cuts the in-process count makes (its walk of `toWindowCut` from 0), so counting each
 * range with `range` and adding the counts gives the whole text's count exactly, the tokens charged
 * for an inexact cut at a boundary included. A text of fewer windows gets fewer ranges.
 */
export function toSegmentRanges(text: string, segments: number): SegmentRange[] {
  const ranges: SegmentRange[] = [];
  let segmentStart = 0;
  for (let start = 0; start < text.length;) {
    const end = toWindowCut(text, start, WINDOW_CHARACTERS).end;
    const target = (text.length * (ranges.length + 1)) / segments;
    if (ranges.length + 1 < segments && end >= target && end < text.length) {
      ranges.push({ start: segmentStart, end });
      segmentStart = end;
    }
    start = end;
  }
  ranges.push({ start: segmentStart, end: text.length });
  return ranges;
}

/**
 * The part of the text a range's count reads: the range and the characters after it that the window
 * cut looks at (up to WINDOW_CHARACTERS past a window's start), so a thread gets a slice, not the text.
 */
export function toSegmentText(text: string, range: SegmentRange): string {
  return text.slice(range.start, Math.min(text.length, range.end + WINDOW_CHARACTERS + 1));
}
