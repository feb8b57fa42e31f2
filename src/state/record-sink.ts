/** Where `classifier.learn` records go: appended as lines, kept to a bounded count by the sink. */
export interface RecordSink {
  /** Appends the lines (each one JSON record, no newline) in order. */
  append(lines: readonly string[]): Promise<void>;
  close(): Promise<void>;
}
